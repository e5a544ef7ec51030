"""Where the shards of model work run: ``local`` threads, or actors on a Ray cluster.

The Ray engine (``AuditRequest.engine == "ray"``) starts one actor per model replica; each
actor loads the model once and works through whole tasks of one kind (:data:`TASK_KINDS`):
infer shards (``run``), embedding batches of the representation stage (``embed``) and the
explain stage's saliency curves (``saliency``). Results come back to the driver as each task
finishes, and the driver alone writes the project store (SQLite stays a single writer): a
task is committed in one transaction when its result arrives, so a worker that dies mid-task
loses only that task's uncommitted work, which Ray re-runs on a restarted actor
(``max_restarts`` / ``max_task_retries``) or the driver re-submits to another actor. The
callers consult their caches before dispatch, so only missing work is sent.

Audio reaches the actors as decoded samples shipped by the driver (``bytes``), or the actors
read the files themselves from a path every node shares (``path``). A cancel cancels every
outstanding task and kills the actors, so nothing is left running on the cluster.

Same answers as the local engine: the actor builds the same backend with the same settings
(the driver's CTranslate2 ``cpu_threads`` included), checks that its fingerprint equals the
driver's before it takes work, and runs the very functions the local engine runs
(:mod:`.shards`, :func:`fairdesk.jobs.explain_stage.saliency_audio`) on the same batches.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ..core.errors import FairdeskError
from ..core.progress import Cancelled

__all__ = [
    "ENGINES",
    "AUDIO_TRANSPORTS",
    "TASK_KINDS",
    "ray_available",
    "require_ray",
    "run_remote",
]

ENGINES = ("local", "ray")
AUDIO_TRANSPORTS = ("bytes", "path")
#: What an actor can do with a task (the :class:`_Worker` method of that name).
TASK_KINDS = ("run", "embed", "saliency")
INSTALL_HINT = "pip install 'fairdesk[cluster]'"
#: Test hook: ``N:MARKER`` makes one actor ``os._exit`` on its N-th item, once (the marker
#: file records that it happened, so the restarted actor goes on).
DIE_HOOK_ENV = "FAIRDESK_RAY_TEST_DIE"
#: A shard whose actor died this many times more (after Ray's own retries) fails the run.
MAX_SHARD_RESUBMITS = 2
_POLL_S = 0.2


def ray_available() -> bool:
    """Whether Ray can be imported here."""
    try:
        import ray  # noqa: F401
    except ImportError:
        return False
    return True


def require_ray():
    """The ``ray`` module, or a usage error saying how to install it."""
    try:
        import ray
    except ImportError:
        raise FairdeskError(
            f"--engine ray needs Ray, which is not installed; install it with "
            f"`{INSTALL_HINT}` (or use --engine local)"
        ) from None
    return ray


def _connect(ray, address: str | None) -> None:
    if ray.is_initialized():
        return
    if address in (None, "", "local"):
        ray.init(include_dashboard=False, log_to_driver=False)
    else:
        try:
            ray.init(address=address, log_to_driver=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise FairdeskError(
                f"--ray-address {address}: cannot connect to a Ray cluster "
                f"({exc}); start one with `ray start --head` and give its "
                "address (auto on the head node, ray://HOST:10001 elsewhere)"
            ) from None


def backend_recipe(req, prep) -> tuple:
    """How an actor gets the driver's backend: ``("spec", model, device, settings)`` to load
    it again, or ``("object", backend)`` for a backend the caller passed in (pickled)."""
    b = prep.backend
    if prep.backend_given:
        return ("object", b)
    settings = {}
    threads = getattr(b, "_cpu_threads", None)
    if threads is not None:  # the same CTranslate2 thread count per decode as the driver
        settings["cpu_threads"] = int(threads)
    return ("spec", req.model, req.device, settings)


class _Worker:
    """One model replica (the body of the Ray actor)."""

    def __init__(self, recipe: tuple, fingerprint: str, die: str | None):
        if recipe[0] == "object":
            self.backend = recipe[1]
        else:
            from ..models import get_backend

            _, model, device, settings = recipe
            self.backend = get_backend(model, device=device, **settings)
        got = f"{self.backend.id}@{self.backend.fingerprint}"
        if got != fingerprint:
            raise FairdeskError(
                f"the model on this worker ({got}) is not the driver's "
                f"({fingerprint}); install the same model files on every node"
            )
        self.die = die
        self.n_items = 0

    def ready(self) -> bool:
        return True

    def _maybe_die(self, n: int) -> None:
        if not self.die:
            return
        nth, marker = self.die.split(":", 1)
        if self.n_items < int(nth) <= self.n_items + n and not os.path.exists(marker):
            Path(marker).write_text(str(os.getpid()))
            os._exit(1)  # a crash mid-shard (test hook)

    def _start(self, rows) -> None:
        self._maybe_die(len(rows))
        self.n_items += len(rows)

    def _audio(self, rows, root, loaded):
        from .shards import load_shard_audio

        return loaded if loaded is not None else load_shard_audio(Path(root), rows)

    def run(self, rows, root, loaded):
        """One infer shard: ``(row index, prediction dict, failure reason)`` per item."""
        from .shards import _predict_shard, predict_audio

        self._start(rows)
        if loaded is None:  # lookups, or audio read from the shared path
            return _predict_shard(self.backend, Path(root), rows)
        return predict_audio(self.backend, loaded)

    def embed(self, rows, root, loaded):
        """One embedding batch: ``(row index, float32 vector)`` per readable item."""
        from .shards import embed_audio

        self._start(rows)
        return embed_audio(self.backend, self._audio(rows, root, loaded))

    def saliency(self, rows, root, loaded, method):
        """Saliency of each row ``(index, item, path, text)``: ``(index, {curve, frame_s,
        meta} or None, failure reason)``."""
        from .explain_stage import saliency_audio

        self._start(rows)
        texts = {r[0]: r[3] for r in rows}
        return saliency_audio(self.backend, self._audio(rows, root, loaded), texts, method)


def _n_actors(ray, req, use_gpu: bool, threads: int) -> int:
    if req.workers:
        return int(req.workers)
    res = ray.cluster_resources()
    if use_gpu:
        return max(1, int(res.get("GPU", 0)))
    return max(1, int(res.get("CPU", 1)) // max(1, threads))


def run_remote(
    req,
    prep,
    shards: list,
    commit: Callable[[list], None],
    cancelled: Callable[[], bool],
    kind: str = "run",
    args: tuple = (),
) -> None:
    """Run ``shards`` (lists of ``(row, key, relative path, ...)``) on Ray actors.

    Parameters
    ----------
    req, prep : the audit request (engine, address, transport, workers) and its prepared
        run (backend, model key, dataset root).
    shards : the tasks; each is a list of rows whose first three fields are the row index,
        the item key and the audio path relative to the dataset root.
    commit : called in the driver with each finished task's result, in completion order.
    cancelled : polled while waiting.
    kind : the :class:`_Worker` method that runs a task (:data:`TASK_KINDS`).
    args : further arguments of that method (``saliency``: the explain method).

    Raises
    ------
    Cancelled
        after cancelling the outstanding tasks and killing the actors; any other error
        likewise leaves nothing running.
    """
    if kind not in TASK_KINDS:
        raise FairdeskError(f"unknown task kind {kind!r}; choose one of {TASK_KINDS}")
    if req.engine != "ray":
        raise FairdeskError(f"unknown engine {req.engine!r}; choose one of {ENGINES}")
    if req.audio_transport not in AUDIO_TRANSPORTS:
        raise FairdeskError(
            f"unknown audio transport {req.audio_transport!r}; choose one of {AUDIO_TRANSPORTS}"
        )
    ray = require_ray()
    _connect(ray, req.ray_address)
    from ray.exceptions import RayActorError, RayTaskError

    from .shards import load_shard_audio

    b = prep.backend
    lookup = kind == "run" and getattr(b, "lookup", None) is not None
    use_gpu = getattr(b, "device", "cpu") == "cuda" and ray.cluster_resources().get("GPU", 0) > 0
    threads = int(getattr(b, "_cpu_threads", 1) or 1) if not use_gpu else 1
    threads = min(threads, max(1, int(ray.cluster_resources().get("CPU", 1))))
    n = min(_n_actors(ray, req, use_gpu, threads), len(shards))
    Actor = ray.remote(_Worker).options(
        num_cpus=threads, num_gpus=1 if use_gpu else 0, max_restarts=3, max_task_retries=3
    )
    recipe = backend_recipe(req, prep)
    die = os.environ.get(DIE_HOOK_ENV) or None
    actors = [Actor.remote(recipe, prep.model_key, die) for _ in range(n)]
    root = str(prep.dataset.root)
    queue = list(reversed(shards))  # pop() takes them in order
    inflight: dict = {}  # ref -> (shard, actor index, resubmits)
    load = [0] * n

    def submit(shard, resubmits=0):
        a = min(range(n), key=lambda i: load[i])
        loaded = None
        if not lookup and req.audio_transport == "bytes":
            loaded = load_shard_audio(Path(root), shard)
        ref = getattr(actors[a], kind).remote(shard, root, loaded, *args)
        inflight[ref] = (shard, a, resubmits)
        load[a] += 1

    try:
        while queue or inflight:
            while queue and len(inflight) < 2 * n and not cancelled():
                submit(queue.pop())
            if cancelled():
                raise Cancelled("cancelled by the user")
            if not inflight:
                continue
            ready, _ = ray.wait(list(inflight), num_returns=1, timeout=_POLL_S)
            for ref in ready:
                shard, a, resubmits = inflight.pop(ref)
                load[a] -= 1
                try:
                    results = ray.get(ref)
                except RayActorError:  # the actor died past its retries: try another
                    if resubmits >= MAX_SHARD_RESUBMITS:
                        raise
                    submit(shard, resubmits + 1)
                    continue
                except RayTaskError as exc:  # the task's own error, as the local engine's
                    raise exc.as_instanceof_cause() from None
                commit(results)
    except BaseException:
        # nothing is left running: queued and running tasks are cancelled, the actors killed
        for ref in inflight:
            ray.cancel(ref, force=False)
        for actor in actors:
            ray.kill(actor, no_restart=True)
        raise
    for actor in actors:
        ray.kill(actor, no_restart=True)
