"""Batched statements: long lists of values are sent to SQLite in batches of
:data:`BATCH_SIZE` (SQLite limits the parameters of one statement; batches keep memory flat
on large imports)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator

#: Values per statement (the ``IN (...)`` list of a lookup, the rows of an ``executemany``).
BATCH_SIZE = 500


def batches(values: Iterable, size: int = BATCH_SIZE) -> Iterator[list]:
    """``values`` in lists of at most ``size`` (the last one shorter), in order.

    Parameters
    ----------
    values : any iterable (read once).
    size : the batch length.

    Yields
    ------
    list
        The next batch (never empty).
    """
    buf: list = []
    for v in values:
        buf.append(v)
        if len(buf) >= size:
            yield buf
            buf = []
    if buf:
        yield buf


def select_in(conn: sqlite3.Connection, sql: str, args: tuple, values: Iterable) -> Iterator:
    """Rows of ``sql`` run once per batch of ``values``.

    Parameters
    ----------
    conn : the connection.
    sql : a query with one ``{marks}`` where the ``IN`` list's ``?`` marks go.
    args : the parameters before the ``IN`` list.
    values : the values of the ``IN`` list.

    Yields
    ------
    sqlite3.Row
        The rows of each batch in turn (no order across batches beyond the batches' order).
    """
    for chunk in batches(values):
        yield from conn.execute(sql.format(marks=",".join("?" * len(chunk))), (*args, *chunk))


def executemany_batched(conn: sqlite3.Connection, sql: str, rows: Iterable) -> None:
    """``conn.executemany(sql, rows)`` in batches of :data:`BATCH_SIZE` rows."""
    for chunk in batches(rows):
        conn.executemany(sql, chunk)
