"""Mutation testing of fairdesk's core with mutmut 3, package by package, beside coverage.

For each package (its files and its *fast* tests, listed in :data:`PACKAGES`) the script

1. measures line and branch coverage of the package's files by those tests (pytest-cov);
2. copies the repository's ``fairdesk/``, ``tests/``, ``resources/`` and ``pyproject.toml`` to a scratch folder,
   adds a ``[tool.mutmut]`` section there and runs ``mutmut run`` (the working tree is never
   touched; mutmut's ``mutants/`` folder stays in the scratch folder, so a second run resumes);
3. prints the mutation score, killed / (mutants with a result), and every surviving mutant
   with its diff, next to the coverage.

The target (issue 21) is >= 85% killed per package; a survivor is either killed by a new test
or listed with the reason it cannot be killed (it changes no observable behaviour): by name in
:data:`EQUIVALENT`, by the shape of its diff in :data:`EQUIVALENT_DIFFS`, or by shape within
named functions in :data:`EQUIVALENT_IN` (the printout counts them per reason). The first
score printed counts every mutant with a result, equivalents as not killed; the second leaves
the equivalents out.

Usage::

    nice -n 15 .venv/bin/python bench/mutation.py metrics core recording stats \\
        [--max-children 2] [--time-limit 1800] [--workdir /tmp/fairdesk-mutation]
    # after adding tests: check the previous survivors again
    nice -n 15 .venv/bin/python bench/mutation.py recording --rerun-survivors
    # a quick check of one part: some functions' mutants against a few test files
    nice -n 15 .venv/bin/python bench/mutation.py stats_boot --no-coverage \\
        --mutants 'fairdesk.stats.bootstrap.x__row_counts__*' --tests tests/stats/test_bootstrap_replay.py

``--time-limit`` caps each package's ``mutmut run`` (seconds); mutants left unchecked at the
cap are counted and printed as such, never as killed. The machine this was written on has two
shared cores: run one package at a time.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: package -> files to mutate (globs, relative to the repository) and the fast tests that
#: cover them. The coverage simulations (tests/stats/test_stats_simulation.py, minutes each)
#: are not among them: fairdesk/stats/simulation.py has its own entry (stats_sim) with fast
#: tests of its parts. stats is split in five entries (stats, stats_tables, stats_boot,
#: stats_reg, stats_sim) so that each fits a run on two shared cores.
PACKAGES: dict[str, dict[str, list[str]]] = {
    "metrics": {
        "mutate": ["fairdesk/metrics/*.py"],
        # the transcript checks, the normaliser choice, the hallucination flags and the
        # phonemizer are also tested where they are used. Left out: the two tests that start
        # processes (loky workers, a fresh interpreter), seconds each for every mutant of the
        # scoring path; the split and join of score_pairs are tested in-process beside them.
        "tests": [
            "tests/metrics",
            "tests/jobs/test_analysis_inputs.py",
            "tests/jobs/test_pitfalls.py",
            "tests/stats/test_stats_pitfalls.py",
            "tests/stats/test_positions_phones.py",
            "--deselect",
            "tests/metrics/test_item_pairs.py::test_worker_processes_give_the_same_columns",
            "--deselect",
            "tests/metrics/test_metrics_normalize.py::test_metrics_import_no_torch_no_qt",
        ],
    },
    "core": {
        "mutate": [
            "fairdesk/core/tables.py",
            "fairdesk/core/importers.py",
            "fairdesk/core/importers_formats.py",
            "fairdesk/core/import_rows.py",
            "fairdesk/core/importers_saa.py",
            "fairdesk/core/importers_l2arctic.py",
        ],
        "tests": [
            "tests/core/test_tables.py",
            "tests/core/test_importers.py",
            "tests/core/test_importers_readers.py",
            "tests/core/test_tables_fields.py",
            "tests/core/test_importers_reimport.py",
            "tests/core/test_importers_corpora.py",
            "tests/core/test_importers_corpora_fields.py",
        ],
    },
    "recording": {
        "mutate": ["fairdesk/recording/wavfile.py", "fairdesk/recording/recorder.py"],
        # test_wavfile_fields.py drives every part without threads' polling or a device; the
        # kill -9 test is left out: its child process runs each mutant for up to two minutes
        # (it stays in the suite).
        "tests": [
            "tests/recording/test_wavfile_fields.py",
            "tests/recording/test_recorder.py",
            "--deselect",
            "tests/recording/test_recorder.py::"
            "test_sigkill_mid_recording_then_recover_keeps_what_was_written",
        ],
    },
    "stats": {
        "mutate": [
            "fairdesk/stats/verdicts.py",
            "fairdesk/stats/summary.py",
            "fairdesk/stats/slicing.py",
            "fairdesk/stats/settings.py",
            "fairdesk/stats/results.py",
            "fairdesk/stats/representation.py",
            "fairdesk/stats/estimability.py",
            "fairdesk/stats/minimums.py",
            "fairdesk/stats/formulas.py",
        ],
        # every stats test file but the simulations' (stats_sim) and the regression
        # subpackage's (stats_reg)
        "tests": [
            "tests/stats",
            "--ignore=tests/stats/test_stats_simulation.py",
            "--ignore=tests/stats/test_simulation_parts.py",
            "--ignore=tests/stats/regression",
        ],
    },
    # the seed tables and the phone and position analyses
    "stats_tables": {
        "mutate": [
            "fairdesk/stats/diacritics_table.py",
            "fairdesk/stats/phone_confusion.py",
            "fairdesk/stats/positions.py",
            "fairdesk/stats/pitfalls.py",
            "fairdesk/stats/sensitivity.py",
        ],
        "tests": [
            "tests/stats/test_diacritics_table.py",
            "tests/stats/test_positions_phones.py",
            "tests/stats/test_stats_tables_fields.py",
            "tests/stats/test_stats_pitfalls.py",
        ],
    },
    # the resampling engine, split off so that each entry fits a run on two shared cores
    "stats_boot": {
        "mutate": [
            "fairdesk/stats/compare.py",
            "fairdesk/stats/comparison.py",
            "fairdesk/stats/bootstrap.py",
            "fairdesk/stats/block_labels.py",
            "fairdesk/stats/groupci.py",
            "fairdesk/stats/jackknife.py",
            "fairdesk/stats/parallel.py",
            "fairdesk/stats/resampled.py",
        ],
        "tests": [
            "tests/stats",
            "--ignore=tests/stats/test_stats_simulation.py",
            "--ignore=tests/stats/test_simulation_parts.py",
            "--ignore=tests/stats/regression",
        ],
    },
    # the regression subpackage (statsmodels fits; its own tests take ~15 s)
    "stats_reg": {
        "mutate": ["fairdesk/stats/regression/*.py"],
        "tests": ["tests/stats/regression"],
    },
    # the simulated audits of METHODS §9: the coverage studies themselves take minutes each
    # (tests/stats/test_stats_simulation.py, in the suite); their parts are checked here on
    # small studies against independent recomputations
    "stats_sim": {
        "mutate": ["fairdesk/stats/simulation.py"],
        "tests": ["tests/stats/test_simulation_parts.py"],
    },
}

#: Survivors that cannot be killed, with the reason (mutant name -> why it is equivalent).
#: Filled from the runs quoted in the issue's closing note; a name not found in a run is
#: ignored.
EQUIVALENT: dict[str, str] = {
    # core/tables.py
    "fairdesk.core.tables.x__read_delimited__mutmut_1": "name_blank's default: read_table always passes name_blank",
    "fairdesk.core.tables.x__read_delimited__mutmut_71": "while <= len(lines): the extra pass finds no line and stops at the same break",
    "fairdesk.core.tables.x__read_delimited__mutmut_85": "break -> return: with a line left next(reader) never raises StopIteration",
    "fairdesk.core.tables.x__read_jsonl__mutmut_4": "the empty column list is replaced by the keys seen before the table is returned",
    "fairdesk.core.tables.x__read_jsonl__mutmut_16": "newline=None: lines split at the same places, and JSON ignores the line end",
    "fairdesk.core.tables.x__read_jsonl__mutmut_84": "setdefault(key) defaults to None, as setdefault(key, None)",
    "fairdesk.core.tables.xǁ_FrameRowsǁ__iter____mutmut_2": "itertuples(index=None): as False, the index is not included",
    "fairdesk.core.tables.xǁ_FrameRowsǁ__iter____mutmut_4": "itertuples without name=None gives namedtuples: zipped with the columns the same",
    "fairdesk.core.tables.xǁ_FrameRowsǁ_row__mutmut_2": "itertuples(index=None): as False, the index is not included",
    "fairdesk.core.tables.xǁ_FrameRowsǁ_row__mutmut_4": "itertuples without name=None gives a namedtuple: zipped with the columns the same",
    "fairdesk.core.tables.x__read_parquet__mutmut_14": "Table's problems default to an empty list",
    "fairdesk.core.tables.x_read_table__mutmut_57": "text.split('\\n')[0]: the first line is the same without the maxsplit",
    "fairdesk.core.tables.x_read_table__mutmut_60": "text.split('\\n', 2)[0]: the first line is the same",
    "fairdesk.core.tables.x_decode_text__mutmut_10": "codec names are case-insensitive",
    "fairdesk.core.tables.x_decode_text__mutmut_14": "bytes.decode defaults to UTF-8",
    "fairdesk.core.tables.x_decode_text__mutmut_17": "codec names are case-insensitive",
    # core/importers.py
    "fairdesk.core.importers.x_derive_content_id__mutmut_31": "codec names are case-insensitive",
    "fairdesk.core.importers_saa.x_read_saa__mutmut_60": "a blank file_missing? read as 'XXXX' instead of '': neither is a true value",
    "fairdesk.core.importers_formats.x_rows_to_candidates__mutmut_98": "`v if ... else v`: both branches are v",
    "fairdesk.core.importers_formats.x_rows_to_candidates__mutmut_99": "`v if ... else v`: both branches are v",
    "fairdesk.core.importers_formats.x_rows_to_candidates__mutmut_126": "no key column: row.get(None) is None (rows are keyed by column names), as the None branch",
    "fairdesk.core.importers_formats.x_rows_to_candidates__mutmut_150": "no speaker column: row.get(None) is None, as the None branch",
    "fairdesk.core.importers_formats.x_rows_to_candidates__mutmut_155": "no content column: row.get(None) is None, as the None branch",
    "fairdesk.core.importers.x_import_dataset__mutmut_284": "INSERT's column names in upper case: SQLite identifiers are case-insensitive",
    # recording
    "fairdesk.recording.recorder.x__recover_one__mutmut_58": "size >= end: truncating a file to its own size changes nothing",
    "fairdesk.recording.recorder.x__recover_one__mutmut_96": "'<i' for the fact chunk's frame count: at most 2**30 frames fit a WAV (4-byte float "
    "frames), below 2**31 the bytes are the same",
    "fairdesk.recording.recorder.xǁRecorderǁ_measure__mutmut_28": "concatenating an empty carry gives the same array",
    "fairdesk.recording.recorder.xǁRecorderǁ_measure__mutmut_40": "reshape(-2, hop): numpy reads any negative size as 'the rest'",
    "fairdesk.recording.recorder.xǁRecorderǁ_write_loop__mutmut_6": "break -> return: nothing follows the loop",
    "fairdesk.recording.recorder.xǁRecorderǁ_write_loop__mutmut_12": "> for >= on the fsync period: two monotonic reads a block apart are never exactly the "
    "period apart (nanosecond clock)",
    "fairdesk.recording.wavfile.x__parse_wav__mutmut_9": "read(4097): chunk headers start at even offsets, so byte 4097 never completes one",
    "fairdesk.recording.wavfile.x_read_sidecar__mutmut_5": "codec names are case-insensitive",
    "fairdesk.recording.wavfile.xǁWavAppenderǁ__init____mutmut_27": "O_BINARY exists on Windows only: getattr(None, ...) falls back to 0, as os lacks it here",
    "fairdesk.recording.wavfile.xǁWavAppenderǁ__init____mutmut_33": "O_BINARY exists on Windows only: any other name falls back to 0 as well",
    "fairdesk.recording.wavfile.xǁWavAppenderǁ__init____mutmut_34": "O_BINARY exists on Windows only: any other name falls back to 0 as well",
    "fairdesk.recording.wavfile.xǁWavAppenderǁ__init____mutmut_35": "the O_BINARY fallback 1 is O_WRONLY, already in the flags (POSIX)",
    "fairdesk.recording.wavfile.x__write_json_atomic__mutmut_12": "codec names are case-insensitive",
    "fairdesk.recording.recorder.xǁRecorderǁ_reset__mutmut_13": "the empty carry's dtype: only a non-empty carry (a block's float32 frames) is "
    "ever concatenated",
    "fairdesk.recording.recorder.xǁRecorderǁ_reset__mutmut_15": "the empty carry's dtype: only a non-empty carry (a block's float32 frames) is "
    "ever concatenated",
    "fairdesk.recording.recorder.xǁRecorderǁ_reset__mutmut_2": "start() sets the stream before anything reads it",
    "fairdesk.recording.recorder.xǁRecorderǁ_reset__mutmut_4": "start() sets the file before anything reads it",
    "fairdesk.recording.recorder.xǁRecorderǁ_reset__mutmut_5": "start() sets the sidecar fields before anything reads them",
    "fairdesk.recording.recorder.xǁRecorderǁstart__mutmut_83": "missing_ok: the take was created a moment before, it exists",
    "fairdesk.recording.recorder.xǁRecorderǁstart__mutmut_84": "missing_ok: the take was created a moment before, it exists",
    "fairdesk.recording.recorder.xǁRecorderǁstart__mutmut_85": "missing_ok: the sidecar was written a moment before, it exists",
    "fairdesk.recording.recorder.xǁRecorderǁstart__mutmut_87": "missing_ok: the sidecar was written a moment before, it exists",
    # stats
    "fairdesk.stats.verdicts.x_direction__mutmut_11": "gap <= 0 for gap < 0: gap == 0 has returned 'equal' two lines above",
    "fairdesk.stats.verdicts.x_direction__mutmut_13": "gap >= 0 for gap > 0: gap == 0 has returned 'equal' two lines above",
    "fairdesk.stats.summary.x_summarise_metric__mutmut_66": "den == 0 then divides numpy floats under errstate: num >= den = 0, so num/0 is inf "
    "for num > 0 and nan for 0, the values of the else branch",
    "fairdesk.stats.minimums.x_check_groups_before_inference__mutmut_42": "speakers.get default: groupby(...).nunique() has an entry for every group of sizes",
    "fairdesk.stats.minimums.x_check_groups_before_inference__mutmut_44": "speakers.get default: groupby(...).nunique() has an entry for every group of sizes",
    "fairdesk.stats.minimums.x_check_groups_before_inference__mutmut_45": "speakers.get default: groupby(...).nunique() has an entry for every group of sizes",
    "fairdesk.stats.minimums.x_check_groups_before_inference__mutmut_70": "the join's separator in the single-group message: it joins exactly one label",
    "fairdesk.stats.settings.xǁAuditSettingsǁwith_run_cap__mutmut_15": "replace() without max_items: the copy's max_items is set on the next line",
    "fairdesk.stats.settings.xǁAuditSettingsǁfrom_dict__mutmut_16": "cap == MAX_RUN_ITEMS lifted via with_run_cap(MAX_RUN_ITEMS): an equal object",
    "fairdesk.stats.estimability.x_rule_of_three__mutmut_6": "n >= 0 for n > 0 after 'n and': n == 0 is falsy and short-circuits",
    "fairdesk.stats.estimability.x_scheme_units__mutmut_3": "shared contents computed for every scheme: _side_blocks reads them only for "
    "two_way and content",
    "fairdesk.stats.estimability.x_auto_scheme__mutmut_19": "first_problem '' instead of None: both falsy in 'first_problem or (...)'",
    "fairdesk.stats.slicing.x__value_labels__mutmut_3": "to_numpy(dtype=None) of an object series is an object array",
    "fairdesk.stats.slicing.x__value_labels__mutmut_5": "to_numpy() without dtype of an object series is an object array",
    "fairdesk.stats.slicing.x__value_labels__mutmut_21": "pandas infers its str dtype for the same labels: values, order and comparisons "
    "unchanged",
    "fairdesk.stats.slicing.x__value_labels__mutmut_24": "pandas infers its str dtype for the same labels: values, order and comparisons "
    "unchanged",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_30": "the same prefix on every group label: the groups' sort order is unchanged",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_41": "to_numpy(dtype=None) after astype(object) is an object array",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_45": "speaker ids as a numpy str array: the same strings as keys (np.str_ hashes as str)",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_47": "speaker ids as a numpy str array: the same strings as keys (np.str_ hashes as str)",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_55": "placeholder speaker ids as a numpy str array: same strings (no trailing NUL)",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_57": "placeholder speaker ids as a numpy str array: same strings (no trailing NUL)",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_34": "'XX\\0XX' for '\\0' between the key values: no label holds either, so the groups "
    "are the same; only the order in which groups take their turns of the seeded "
    "generator can change, not what any sample is drawn from",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_90": "a group of exactly n goes through the turns, which take all its items; the "
    "output is sorted by position",
    "fairdesk.stats.formulas.x_holm_adjust__mutmut_16": "sort kind: tied p-values get the same adjusted value (running maximum), whatever their order",
    "fairdesk.stats.formulas.x_holm_adjust__mutmut_18": "sort kind: tied p-values get the same adjusted value (running maximum), whatever their order",
    "fairdesk.stats.formulas.x_holm_multipliers__mutmut_20": "numpy reads the sort kind case-insensitively: 'STABLE' is 'stable'",
    "fairdesk.stats.formulas.x_holm_adjust__mutmut_20": "numpy reads the sort kind case-insensitively: 'MERGESORT' is 'mergesort'",
    "fairdesk.stats.formulas.x_planned_bootstrap__mutmut_3": "m == 0 computed anyway: ceil(0 / alpha - 1e-9) is 0",
    "fairdesk.stats.estimability.x_constant_value__mutmut_20": "max(1, |hi|) for max(1, |lo|, |hi|): when hi - lo is within the tolerance |lo| and |hi| differ by less than the float resolution of the bound",
    "fairdesk.stats.estimability.x_constant_value__mutmut_21": "max(1, |lo|) for max(1, |lo|, |hi|): when hi - lo is within the tolerance |lo| and |hi| differ by less than the float resolution of the bound",
    "fairdesk.stats.representation.x__labels__mutmut_2": "labels as a numpy str array: the same strings for sklearn, set() and ==",
    "fairdesk.stats.representation.x__labels__mutmut_4": "labels as a numpy str array: the same strings for sklearn, set() and ==",
    "fairdesk.stats.representation.x_silhouette__mutmut_5": "sklearn converts the embeddings to float itself",
    "fairdesk.stats.representation.x_silhouette__mutmut_7": "sklearn converts the embeddings to float itself",
    "fairdesk.stats.representation.x_silhouette__mutmut_22": "a sample of max_items >= n items is all n items (sklearn permutes and keeps all): the same score",
    "fairdesk.stats.representation.x_silhouette__mutmut_23": "a sample of max_items == n items is all n items: the same score",
    "fairdesk.stats.representation.x_representation_analysis__mutmut_19": "flags.get default None for False: 'None or v' is v",
    "fairdesk.stats.representation.x_representation_analysis__mutmut_21": "flags.get without default (None) for False: 'None or v' is v",
    "fairdesk.stats.representation.x_representation_analysis__mutmut_27": "setdefault None for False: the flag is read only as a truth value by case_label",
    "fairdesk.stats.representation.x_representation_analysis__mutmut_29": "setdefault without default (None) for False: read only as a truth value",
    "fairdesk.stats.representation.x_leakage__mutmut_5": "the shape check reads the same array; sklearn converts the embeddings to float",
    "fairdesk.stats.representation.x_leakage__mutmut_7": "the shape check reads the same array; sklearn converts the embeddings to float",
    "fairdesk.stats.representation.x_leakage__mutmut_42": "speaker ids as a numpy str array: the same strings",
    "fairdesk.stats.representation.x_leakage__mutmut_44": "speaker ids as a numpy str array: the same strings",
    "fairdesk.stats.representation.x_leakage__mutmut_60": "placeholder ids as a numpy str array: np.where with the object ids gives objects",
    "fairdesk.stats.representation.x_leakage__mutmut_62": "placeholder ids as a numpy str array: np.where with the object ids gives objects",
    "fairdesk.stats.representation.x_leakage__mutmut_66": "speaker ids as a numpy str array: the same strings for set() and the folds",
    "fairdesk.stats.representation.x_leakage__mutmut_68": "speaker ids as a numpy str array: the same strings for set() and the folds",
    "fairdesk.stats.representation.x_leakage__mutmut_219": "max_iter 2001 for 2000: the probe converges well before (lbfgs on standardised data)",
    "fairdesk.stats.jackknife.x_jackknife_tests__mutmut_3": "spec.compute casts its sums to float, so its values are float already",
    "fairdesk.stats.jackknife.x_jackknife_tests__mutmut_5": "spec.compute casts its sums to float, so its values are float already",
    "fairdesk.stats.jackknife.x_jackknife_tests__mutmut_11": "spec.compute casts its sums to float, so its values are float already",
    "fairdesk.stats.jackknife.x_jackknife_tests__mutmut_13": "spec.compute casts its sums to float, so its values are float already",
    "fairdesk.stats.jackknife.x_jackknife_flips__mutmut_7": "min(2, x) >= alpha exactly when min(1, x) >= alpha, since alpha < 1",
    "fairdesk.stats.groupci.x__local__mutmut_12": "missing codes need only be distinct and above the others: the dense codes are the same",
    "fairdesk.stats.groupci.x__local__mutmut_13": "missing codes need only be distinct and above the others: the dense codes are the same",
    "fairdesk.stats.groupci.x__local__mutmut_14": "missing codes need only be distinct and above the others: the dense codes are the same",
    "fairdesk.stats.groupci.x__local__mutmut_15": "missing codes need only be distinct and above the others: the dense codes are the same",
    "fairdesk.stats.groupci.x__local__mutmut_3": "integer codes either way; np.unique gives the same dense codes",
    "fairdesk.stats.groupci.x__local__mutmut_5": "integer codes either way; np.unique gives the same dense codes",
    "fairdesk.stats.compare.x__leave_speakers_out__mutmut_5": "jackknifes more comparisons; a jackknife is read only for a comparison significant after Holm, which had p < alpha",
    "fairdesk.stats.compare.x__leave_speakers_out__mutmut_6": "jackknifes more comparisons; a jackknife is read only for a comparison significant after Holm, which had p < alpha",
    "fairdesk.stats.compare.x__leave_speakers_out__mutmut_11": "jackknifes more comparisons; a jackknife is read only for a comparison significant after Holm, which had p < alpha",
    "fairdesk.stats.groupci.x__const_interval__mutmut_4": "a non-constant group (v None) with n > 0 matches neither 0 nor 1 below and returns None too",
    "fairdesk.stats.groupci.x__const_interval__mutmut_7": "n == 0 is caught by 'not n' before n < 0",
    "fairdesk.stats.bootstrap.x_comparison_rng__mutmut_14": "'UTF-8' and 'utf-8' name the same codec",
    "fairdesk.stats.bootstrap.x_shared_contents__mutmut_1": "a side without content ids reads as np.asarray(None), one missing label with no present "
    "content, so the intersection is empty either way",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_134": "positions are ints; an empty selection indexes the same empty frame",
    "fairdesk.stats.slicing.x_stratified_sample__mutmut_136": "positions are ints; an empty selection indexes the same empty frame",
    # stats/regression
    "fairdesk.stats.regression.linear.x_run_linear__mutmut_69": "outcome 'wer' converted too: the column was computed as floats just above and "
    "to_numeric leaves it unchanged",
    "fairdesk.stats.regression.linear.x_run_linear__mutmut_71": "as x_run_linear__mutmut_69: the 'wer' column converted to the same floats",
    "fairdesk.stats.regression.linear.x_run_linear__mutmut_72": "as x_run_linear__mutmut_69: the 'wer' column converted to the same floats",
    "fairdesk.stats.regression.linear.x_speaker_frame__mutmut_4": "groupby sort: out's index is sorted(g.groups) and every column aligns on the speaker",
    "fairdesk.stats.regression.linear.x_speaker_frame__mutmut_6": "groupby sort: out's index is sorted(g.groups) and every column aligns on the speaker",
    "fairdesk.stats.regression.linear.x_speaker_frame__mutmut_8": "groupby sort: out's index is sorted(g.groups) and every column aligns on the speaker",
    "fairdesk.stats.regression.linear.x_speaker_frame__mutmut_10": "an empty frame takes the index of its first column: the grouped Series, indexed by "
    "the sorted speaker labels and named speaker_col, the same index",
    "fairdesk.stats.regression.poisson_mixed_report.x__tracing__mutmut_17": "the last step refits the main model's terms on the same data: a deterministic fit, "
    "the same numbers as main",
    "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ_covariate__mutmut_14": "to_numeric's result has a numeric dtype already (int, float or nullable): the mean, "
    "SD and standardised block are the same floats",
    # stats/simulation.py
    "fairdesk.stats.simulation.x_familywise_study__mutmut_18": "n_comp and b_used are set by every audit before they are read; with n_audits = 0 "
    "the division by n_audits raises first",
    "fairdesk.stats.simulation.x_familywise_study__mutmut_19": "n_comp and b_used are set by every audit before they are read; with n_audits = 0 "
    "the division by n_audits raises first",
    "fairdesk.stats.simulation.x_simulate_audit__mutmut_38": "speaker_id None as a scalar: pandas broadcasts it to the same object column of None",
    "fairdesk.stats.simulation.x_simulate_audit__mutmut_39": "np.array(None, dtype=object) is a 0-d scalar: the same object column of None",
    "fairdesk.stats.simulation.x_simulate_audit__mutmut_162": "multinomial of an empty count array is the same (0, 3) int64 array and draws nothing",
    "fairdesk.stats.simulation.x_simulate_audit__mutmut_172": "an empty split of 4 columns instead of 3: only columns 0-2 of its zero rows are read",
    "fairdesk.stats.simulation.x_simulate_audit__mutmut_196": "astype(None) is astype(float64) in numpy",
    "fairdesk.stats.simulation.x_small_audit_study__mutmut_140": "spec.compute returns float64 already (it casts the sums to float)",
    "fairdesk.stats.simulation.x_small_audit_study__mutmut_142": "spec.compute returns float64 already (it casts the sums to float)",
    "fairdesk.stats.simulation.x_small_audit_study__mutmut_144": "spec.compute casts the sums to float itself",
    "fairdesk.stats.simulation.x_small_audit_study__mutmut_87": "repeated index labels: compare_groups reads the index only in its message for a "
    "non-finite statistic (simulated counts are finite); selections are boolean masks",
    "fairdesk.stats.simulation.x_small_audit_study__mutmut_89": "repeated index labels: compare_groups reads the index only in its message for a "
    "non-finite statistic (simulated counts are finite); selections are boolean masks",
    "fairdesk.stats.simulation.x_small_audit_study__mutmut_90": "repeated index labels: compare_groups reads the index only in its message for a "
    "non-finite statistic (simulated counts are finite); selections are boolean masks",
}

EQUIVALENT.update(
    {
        f"fairdesk.recording.wavfile.x__header__mutmut_{n}": "a signed struct code for a WAV header field (format tag, channels, chunk sizes 16/18/4, "
        "cbSize 0, rates, the empty take's sizes) far below the signed limit: the same bytes"
        for n in (20, 36, 50, 57, 75, 82, 97, 109)
    }
)

# stats_tables: the seed-003 table, the phone confusions and the word positions
_DT = "fairdesk.stats.diacritics_table.x_"
_PC = "fairdesk.stats.phone_confusion.x_"
_POS = "fairdesk.stats.positions.x_word_position_heatmap__mutmut_"
EQUIVALENT.update(
    {
        **{
            f"{_DT}_rate_block__mutmut_{n}": "dtype of the replicate rates: MetricSpec.compute already returns a float array"
            for n in (19, 21)
        },
        **{
            f"{_DT}diacritic_table__mutmut_{n}": "compute_item_stats' language: the dia_* and nodia_* columns the table reads are counted "
            "on the tone-preserving split of the raw texts whatever the language; it picks only the "
            "WER/CER normaliser (metrics/items.py _transcription_pairs)"
            for n in (49, 53, 60, 61)
        },
        **{
            f"{_DT}diacritic_table__mutmut_{n}": "compute_item_stats' normaliser: the dia_* and nodia_* columns the table reads are "
            "counted on the tone-preserving split of the raw texts whatever it is; it changes only "
            "the WER/CER columns, never read here"
            for n in (51, 55)
        },
        f"{_DT}diacritic_table__mutmut_65": "X as int64 instead of float: its columns are whole counts, only summed and cast to "
        "float by bootstrap_value, MetricSpec.compute and int() in _counts",
        **{
            f"{_PC}_phone_pairs__mutmut_{n}": "a chunk whose tag test no longer matches falls to the substitution branch, where "
            "editops over an equal chunk (no edits), a pure deletion (every phone deleted, in order) "
            "or a pure insertion (every phone inserted, in order) give the same pairs in the same order"
            for n in (30, 31, 35, 36, 40, 41)
        },
        f"{_PC}confused_phone_pairs__mutmut_4": "correct=None instead of False: _phone_pairs reads only its truth",
        **{
            f"{_PC}annotated_phone_confusion__mutmut_{n}": "the (ph, ph) padding of a group with phone counts: tabulate drops equal pairs and takes "
            "n(P) from n_by_phone=Counter(base) there, so the padded counts are never read"
            for n in (26, 27, 32, 33, 35)
        },
        **{
            f"{_PC}model_phone_confusion__mutmut_{n}": "a column name of the internal frame: value_counts' keys are tuples in column order, "
            "the names are never read"
            for n in (8, 9, 11, 12, 18, 19)
        },
        **{
            f"{_PC}model_phone_confusion__mutmut_{n}": "to_numpy() of a text column after fillna('') is already an object array of str"
            for n in (13, 20)
        },
        f"{_PC}model_phone_confusion__mutmut_26": "value_counts(sort=None): pandas reads only its truth, as sort=False",
        **{
            f"{_POS}{n}": "the 0/1 flags are a list of ints: np.asarray makes an int array anyway"
            for n in (112, 114)
        },
        **{
            f"{_POS}{n}": "groupby's sort orders only the n_groups dict, which is read by key"
            for n in (35, 37, 39)
        },
        **{
            f"{_POS}{n}": "to_numpy() of a text column (object or pandas str dtype) is already an "
            "object array"
            for n in (50, 54)
        },
        f"{_POS}72": "every count doubled: the most common text (and the tie-break) is the same",
    }
)

# metrics (tests/metrics/test_metrics_messages_and_boundaries.py kills the rest of the first
# run's survivors)
_M = "fairdesk.metrics."
EQUIVALENT.update(
    {
        _M + "confusion.x_confusion_matrix__mutmut_50": "groupby sort=True is pandas' default",
        **{
            _M
            + f"hallucination.x_hallucination_columns__mutmut_{n}": "the memo of distinct inputs missed for a list or dict cell (its key already made "
            "hashable): the row is checked again, with the same result"
            for n in (61, 62)
        },
        **{
            _M
            + f"hallucination.x__max_repeats__mutmut_{n}": "more start positions: a slice starting there is shorter than the n-gram, never equal "
            "to it, so its count stays 0"
            for n in (5, 6)
        },
        **{
            _M
            + f"hallucination.x__runs__mutmut_{n}": "a looser end guard: a slice past the end is shorter than the n-gram, never equal to "
            "it, so the same runs are found"
            for n in (4, 11, 12, 13)
        },
        _M
        + "hallucination.x__runs__mutmut_5": "an n-gram starting at L - n has no room for a second copy (k = 1, nothing added)",
        _M
        + "hallucination.x__runs__mutmut_26": "single n-grams (k = 1) listed too, stepping the same (i += 1): find_loop drops them, "
        "k < min_repeats (>= 2, HallucinationSettings refuses less)",
        _M + "hallucination.x_unstable__mutmut_6": "get_normalizer's language defaults to 'en'",
        _M + "hallucination.x_unstable__mutmut_8": "'EN' is English too (is_english lower-cases)",
        _M
        + "hallucination.x_unstable__mutmut_19": "jiwer aligns an empty side too: every word of the other side is a deletion or an "
        "insertion, the distance the same as 'longest'",
        **{
            _M
            + f"items.x__classification__mutmut_{n}": "labels as a numpy str array instead of objects: label_text gives str, the same "
            "strings compared, sorted and put in column names"
            for n in (8, 10, 16, 18)
        },
        _M
        + "items.x__confidence__mutmut_37": "na_value None with dtype float: NA becomes NaN, and missing rows get 0.0 from ok anyway",
        _M
        + "items.x__confidence__mutmut_39": "to_numpy(dtype=float) turns NA into NaN itself; missing rows get 0.0 from ok anyway",
        _M + "items.x__missing__mutmut_3": "to_numpy() of a bool Series is a bool array",
        _M
        + "items.x__slu__mutmut_68": "exact_match without slots on either side is the intent match, which is 1 there",
        **{
            _M
            + f"registry.x__missing_message__mutmut_{n}": "every fixed metric has a denominator: the 'its inputs' branch is never taken"
            for n in (8, 16, 17)
        },
        _M + "registry.x__fixed_metrics__mutmut_346": "kind='rate' is ratio_metric's default",
        _M + "registry.x__fixed_metrics__mutmut_372": "kind='rate' is ratio_metric's default",
        _M
        + "registry.x_class_metric__mutmut_31": "the stand-in denominator of absent classes: their recall is replaced by 0 by the "
        "outer where",
        _M + "slots.x_slot_diff__mutmut_2": "'EN' is English too (is_english lower-cases)",
        _M + "slots.x_exact_match__mutmut_2": "'EN' is English too (is_english lower-cases)",
        _M + "text.x_char_counts__mutmut_2": "'EN' is English too (is_english lower-cases)",
        _M + "text.x_word_counts__mutmut_2": "'EN' is English too (is_english lower-cases)",
        _M
        + "phones.xǁPhonemizerǁprepare__mutmut_8": "strip(\"XX'XX\") on a lower-cased word strips the same apostrophes (no 'X' is left)",
        **{
            _M
            + f"phones.xǁPhonemizerǁ_espeak__mutmut_{n}": "the espeak-ng timeout: never reached (one call takes well under a second), no "
            "observable change"
            for n in (9, 15, 27)
        },
        **{
            _M
            + f"phones.xǁPhonemizerǁ_espeak__mutmut_{n}": "check=None or omitted: subprocess.run's default, check=False"
            for n in (10, 16)
        },
    }
)

# metrics, second run (tests/metrics/test_normaliser_memo_and_item_columns.py kills the rest
# of its survivors)
EQUIVALENT.update(
    {
        _M
        + "items.x__transcription__mutmut_8": "np.fromiter's count only preallocates the array: the same codes without it",
        **{
            _M
            + f"items.x__transcription_pairs__mutmut_{n}": "reshape(-2, 4): numpy reads a negative size as the unknown dimension, as -1"
            for n in (47, 63, 148)
        },
        _M + "items.x_compute_item_stats__mutmut_2": "'EN' is English too (is_english lower-cases)",
        _M + "normalize.x_get_normalizer__mutmut_2": "'EN' is English too (is_english lower-cases)",
        _M
        + "normalize.x_english__mutmut_4": "the English normaliser of '' is '' (Whisper's EnglishTextNormalizer gives '', "
        "join_digits keeps it)",
        _M
        + "pairs.x_score_pairs__mutmut_11": "getattr's default None instead of False: only its truth is read",
        **{
            _M
            + f"pairs.x_score_pairs__mutmut_{n}": "reset_index(drop=None/False) still numbers the chunk from 0; it only adds the old "
            "index as an 'index' column, which the score function never reads (it reads "
            "reference and hypothesis)"
            for n in (37, 38)
        },
        _M
        + "pairs.x_score_pairs__mutmut_60": "every part has the same keys, and there are always several parts here (4 n chunks, "
        "n >= 2, of >= 20,000 pairs, none empty)",
        **{
            _M
            + f"registry.x__ratio__mutmut_{n}": "the inputs' dtype: num / den is true division by a float-filled where(), so the "
            "ratio is the same float whatever the numeric dtype"
            for n in (3, 5, 8, 10)
        },
        _M
        + "registry.x__ratio__mutmut_35": "den >= 0 as the inner guard: a zero denominator then gives inf/NaN, which the outer "
        "where replaces by NaN anyway (errstate silences the warning)",
        _M
        + "registry.x__ratio__mutmut_37": "the stand-in denominator where den <= 0: the outer where replaces those values by NaN",
        _M + "registry.x_metric_specs__mutmut_3": "list() of a DataFrame is its column names",
        _M
        + "registry.x_metric_specs__mutmut_18": "to_numpy() of the numeric count columns in their own dtype: the sum's sign is the same",
        **{
            _M
            + f"text.x_tone_counts_units__mutmut_{n}": "rapidfuzz's opcodes give equal and replace blocks of the same length on both sides "
            "(a replace is one-for-one substitutions; checked on 200,000 random pairs): the "
            "unaligned tails are empty, and min() of the two equal lengths is either"
            for n in (34, 35, 59, 61, 64, 66)
        },
    }
)

#: Functions whose mutants mutmut cannot activate, with the reason (mangled-name prefix ->
#: why). mutmut 3 switches a mutant on per call, in a child forked after the modules were
#: imported; code that runs only at import time has already run unmutated by then (the
#: registry's metric table is therefore also built inside a test:
#: tests/metrics/test_metrics_table.py).
NOT_ACTIVATABLE: dict[str, str] = {
    "fairdesk.recording.wavfile.x_take_is_locked__mutmut_1": "the branch for a system without fcntl (Windows); fcntl always imports here",
}


# the regression subpackage (stats_reg): survivors that change no result
EQUIVALENT.update(
    {
        # stats_reg: independence, adjusted, descriptive, univariate
        "fairdesk.stats.regression.independence.x__independence__mutmut_29": "the counts as float64 instead of int: as_dict casts each to int and chi2_contingency "
        "gives the same numbers on whole-number floats",
        "fairdesk.stats.regression.independence.x__independence__mutmut_30": "crosstab's rows are exactly the present levels of a (sorted instead of reference first): "
        "as_dict reads by label, and chi2, p, dof, min and share of the expected counts do not "
        "depend on row order",
        "fairdesk.stats.regression.independence.x__independence__mutmut_31": "crosstab's columns are exactly the present levels of b (sorted instead of reference "
        "first): as_dict reads by label, and the chi2 results do not depend on column order",
        "fairdesk.stats.regression.independence.x__independence__mutmut_32": "crosstab already holds every present row x column pair (0 for an empty cell), so reindex "
        "never fills",
        "fairdesk.stats.regression.independence.x__independence__mutmut_33": "as x__independence__mutmut_30: the rows left in crosstab's order",
        "fairdesk.stats.regression.independence.x__independence__mutmut_34": "as x__independence__mutmut_31: the columns left in crosstab's order",
        "fairdesk.stats.regression.independence.x__independence__mutmut_35": "as x__independence__mutmut_32: reindex never fills",
        "fairdesk.stats.regression.independence.x__independence__mutmut_41": "the Series name only names crosstab's axis; cells are read by level label",
        "fairdesk.stats.regression.independence.x__independence__mutmut_43": "the Series name only names crosstab's axis; cells are read by level label",
        "fairdesk.stats.regression.independence.x__independence__mutmut_45": "the Series name only names crosstab's axis; cells are read by level label",
        "fairdesk.stats.regression.independence.x__independence__mutmut_47": "the Series name only names crosstab's axis; cells are read by level label",
        "fairdesk.stats.regression.independence.x__independence__mutmut_48": "as x__independence__mutmut_32: reindex never fills",
        "fairdesk.stats.regression.adjusted.x__adjustment__mutmut_79": "cells=None instead of False: _separation only reads its truth (if cells / 'cell' if "
        "cells else 'level')",
        "fairdesk.stats.regression.adjusted.x__adjustment__mutmut_230": "the interaction cache key's tag: any string keeps the 3-tuple key distinct from the "
        "2-tuple model key and equal for both orders of the pair",
        "fairdesk.stats.regression.adjusted.x__adjustment__mutmut_231": "the interaction cache key's tag: any string keeps the 3-tuple key distinct from the "
        "2-tuple model key and equal for both orders of the pair",
        "fairdesk.stats.regression.univariate.x__univariate__mutmut_41": "cells=None instead of False: _separation only reads its truth (if cells / 'cell' if "
        "cells else 'level')",
        "fairdesk.stats.regression.univariate.x__univariate__mutmut_95": "pseudo-R² computed for GEE too: GEE's llf and llnull are NaN, so 1 - llf/llnull is NaN, "
        "the same as the else branch",
        "fairdesk.stats.regression.univariate.x__univariate__mutmut_100": "as x__univariate__mutmut_95: for GEE 1 - llf/llnull is NaN anyway",
        "fairdesk.stats.regression.univariate.x__univariate__mutmut_101": "as x__univariate__mutmut_95: for GEE 1 - llf/llnull is NaN anyway",
        "fairdesk.stats.regression.descriptive.x_outcome_chi2__mutmut_7": "every level of data.levels occurs where the variable is known and there are at least two "
        "(_prepare refuses fewer), so each level has rows both equal and unequal to it: the same "
        "list",
        "fairdesk.stats.regression.descriptive.x_cross_tables__mutmut_28": "rows with only one of the pair known: crosstab and groupby (dropna) leave out rows with "
        "a missing key, so the cells are the same",
        "fairdesk.stats.regression.descriptive.x_speaker_spread__mutmut_12": "every level of data.levels occurs on the known rows of its variable, so m.any() is "
        "always true and the break (like the continue) is never reached",
        "fairdesk.stats.regression.descriptive.x_speaker_spread__mutmut_35": "groupby's default sort is True, as passed",
        "fairdesk.stats.regression.descriptive.x_speaker_spread__mutmut_52": "y / n of float columns is float64 already: to_numpy(None) gives the same array",
        "fairdesk.stats.regression.descriptive.x_speaker_spread__mutmut_94": "the SD of a level with one speaker: numpy's std(ddof=1) of one value is NaN, which _num "
        "turns into None, as the else branch",
        "fairdesk.stats.regression.descriptive.x_speaker_spread__mutmut_98": "as x_speaker_spread__mutmut_94: std(ddof=1) of one value is NaN -> None",
        # stats_reg: poisson_mixed, poisson_mixed_report
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_101": "σ's starting value for the optimiser (1.5 for 0.5): the marginal likelihood has one "
        "maximum in σ and the optimiser reaches it from either; only the iteration count "
        "differs",
        "fairdesk.stats.regression.poisson_mixed.x_speaker_loglik__mutmut_4": "y kept in its own dtype: only y.size is read here and _Marginal converts y with "
        "np.asarray(y, dtype=float), the same floats",
        "fairdesk.stats.regression.poisson_mixed.x_speaker_loglik__mutmut_6": "as x_speaker_loglik__mutmut_4: _Marginal converts y to the same floats",
        "fairdesk.stats.regression.poisson_mixed.x_speaker_loglik__mutmut_27": "speaker codes as float zeros: _Marginal converts them with np.asarray(speakers, "
        "dtype=np.int64), the same zeros",
        "fairdesk.stats.regression.poisson_mixed.x_speaker_loglik__mutmut_29": "as x_speaker_loglik__mutmut_27: float zeros become the same int64 codes in _Marginal",
        "fairdesk.stats.regression.poisson_mixed.x_speaker_loglik__mutmut_32": "order None: evaluate also computes the score and Hessian, but the log-likelihood "
        "(element 0) is computed before and is the same number",
        "fairdesk.stats.regression.poisson_mixed.x_speaker_loglik__mutmut_35": "default order 2: the score and Hessian are computed too, the log-likelihood (element 0) "
        "is the same number",
        "fairdesk.stats.regression.poisson_mixed.x_speaker_loglik__mutmut_39": "order 1: the score is computed too, the log-likelihood (element 0) is the same number",
        "fairdesk.stats.regression.poisson_mixed_report.x_run_poisson_mixed__mutmut_81": "map(str) gives a str (or object) Series, whose to_numpy() is already an object array of "
        "the same labels",
        "fairdesk.stats.regression.poisson_mixed_report.xǁ_Modelǁ__init____mutmut_33": "ndarray.astype(None) is astype(float64): the same float counts",
        "fairdesk.stats.regression.poisson_mixed_report.xǁ_Modelǁ__init____mutmut_50": "dev == 1e-12 exactly never happens: a column is either constant within speakers (dev 0 "
        "up to a few ulps) or varies by far more",
        "fairdesk.stats.regression.poisson_mixed_report.xǁ_Modelǁ__init____mutmut_54": "the intercept column is constant within every speaker, so between.any() is always True",
        "fairdesk.stats.regression.poisson_mixed_report.xǁ_Modelǁ__init____mutmut_56": "the intercept column is constant within every speaker, so between.any() is always True "
        "and the else branch never runs",
        "fairdesk.stats.regression.poisson_mixed_report.xǁ_Modelǁ__init____mutmut_90": "self.X is never read (nothing uses _Model.X)",
        "fairdesk.stats.regression.poisson_mixed.x__maximise__mutmut_11": "evaluate computes the score and Hessian for every order other than 0 and 1: order None "
        "is order 2",
        "fairdesk.stats.regression.poisson_mixed.x__maximise__mutmut_14": "evaluate's default order is 2, the order passed",
        "fairdesk.stats.regression.poisson_mixed.x__maximise__mutmut_15": "evaluate computes the score and Hessian for every order other than 0 and 1: order 3 is "
        "order 2",
        "fairdesk.stats.regression.poisson_mixed.x__maximise__mutmut_52": "scipy.optimize.minimize lower-cases the method name: 'TRUST-EXACT' is trust-exact",
        "fairdesk.stats.regression.poisson_mixed.x__maximise__mutmut_57": "the iteration limit is never reached: trust-exact converges in a few dozen Newton steps "
        "on these concave likelihoods",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_121": "evaluate computes the score and Hessian for every order other than 0 and 1: order None "
        "is order 2",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_124": "evaluate's default order is 2, the order passed",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_125": "evaluate computes the score and Hessian for every order other than 0 and 1: order 3 is "
        "order 2",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_131": "H has p + 1 rows: H[:p + 2, :p + 2] is H[:p + 1, :p + 1]",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_138": "the inverse of the (positive-definite) information at the maximum has a strictly "
        "positive diagonal; an exact 0 never occurs",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_58": "estimate_sigma None is falsy, as False: the same plain GLM fit",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_79": "estimate_sigma None is falsy, as False: the same fixed-sigma fit",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_51": "the start is read only as x0 of scipy.optimize.minimize, which converts an integer x0 to "
        "float",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_53": "the start is read only as x0 of scipy.optimize.minimize, which converts an integer x0 to "
        "float",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_4": "numeric y (int, float, bool) passes the same checks (size, < 0, != round) and _Marginal "
        "converts it to float",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_6": "numeric y (int, float, bool) passes the same checks (size, < 0, != round) and _Marginal "
        "converts it to float",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ__init____mutmut_3": "both callers (fit_poisson_mixed, speaker_loglik) pass y already converted to float",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ__init____mutmut_5": "both callers (fit_poisson_mixed, speaker_loglik) pass y already converted to float",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ_dummies__mutmut_2": "labels come from map(str): to_numpy() is already an object array of the same strings",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ_dummies__mutmut_4": "ndarray.astype(None) is astype(float64): the same 0/1 columns",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ_content__mutmut_21": "labels come from map(str): to_numpy() is already an object array of the same strings",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ_content__mutmut_24": "content ids come from map(str): to_numpy() is already an object array of the same "
        "strings",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ_content__mutmut_31": "the name of the frame's group column is internal: drop_duplicates and groupby('c') count "
        "the same pairs",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ_content__mutmut_32": "the name of the frame's group column is internal: drop_duplicates and groupby('c') count "
        "the same pairs",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ__init____mutmut_130": "self.df is assigned again after the error-free levels are removed, before anything reads "
        "it",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ__init____mutmut_137": "speakers come from map(str): to_numpy() is already an object array of the same strings",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ__init____mutmut_149": "refs {group_vars[0]: None} reads as {}: refs.get(var) is None either way and its key is "
        "a group variable",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ__init____mutmut_159": "labels come from map(str): to_numpy() is already an object array of the same strings",
        "fairdesk.stats.regression.poisson_mixed_report.x_run_poisson_mixed__mutmut_146": "p_adjusted None or NaN: both are None in the JSON result, and _conclusions reads "
        "p_adjusted only for rows with a finite p-value, whose p_adjusted is set",
        "fairdesk.stats.regression.poisson_mixed_report.x_run_poisson_mixed__mutmut_148": "setdefault's default is None: as x_run_poisson_mixed__mutmut_146",
        "fairdesk.stats.regression.poisson_mixed_report.x_run_poisson_mixed__mutmut_220": "the covariance matrix is square: shape[1] is shape[0]",
        "fairdesk.stats.regression.poisson_mixed_report.x_run_poisson_mixed__mutmut_222": "the inverse of the positive-definite information has a strictly positive diagonal: "
        "cov[p, p] is never exactly 0",
        "fairdesk.stats.regression.poisson_mixed.xǁPreparedDataǁ__init____mutmut_132": "errs is a numeric Series without missing values here: int or float counts give the same "
        "sums, WERs and Pearson terms, and fit_poisson_mixed converts y to float",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ__init____mutmut_8": "X enters only products with float arrays (X @ beta, X.T @ y, e * X): an integer or "
        "boolean design gives the same floats",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ__init____mutmut_10": "X enters only products with float arrays (X @ beta, X.T @ y, e * X): an integer or "
        "boolean design gives the same floats",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_109": "sig == 1e-4 exactly never happens for an optimiser's estimate",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_112": "the mixed fit's log-likelihood exactly equal to the GLM's plus 1e-9 never happens",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_181": "a Newton decrement of exactly 1e-8 never happens",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁevaluate__mutmut_1": "evaluate computes the score and Hessian for every order other than 0 and 1, and every "
        "caller passes order: a default of 3 is never used (and would be order 2)",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁevaluate__mutmut_25": "Gauss-Hermite nodes and weights are symmetric about 0: v - sqrt(2) tau z is the same "
        "node set, summed in reverse order",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁevaluate__mutmut_66": "no caller passes order 1; order 0 then computes the score and Hessian too and returns "
        "the same log-likelihood first (speaker_loglik reads only that)",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ__init____mutmut_31": "the shape inferred from the indices is (max code + 1, n), the shape given",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ__init____mutmut_33": "the shape inferred from the indices is (max code + 1, n), the shape given",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_16": "the Newton loop stops on its tolerance within a few dozen steps: the 201st iteration is "
        "never reached",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_27": "|g| exactly equal to the tolerance never happens",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ__init____mutmut_28": "with no utterance the one speaker has Y = A = 0 and contributes log of the integral of "
        "the normal density, 0: speaker_loglik([], [], s) is 0.0 either way",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ__init____mutmut_13": "every caller passes a float64 offset (log N, + log_rate); the offset enters only float64 "
        "sums offset + X @ beta",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ__init____mutmut_15": "every caller passes a float64 offset (log N, + log_rate); the offset enters only float64 "
        "sums offset + X @ beta",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_25": "no early stop: Newton keeps iterating at the mode, where its steps move v by rounding "
        "only; the same mode and likelihood",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_28": "a tighter stopping tolerance: more Newton steps at the mode, which move v by rounding "
        "only",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_30": "a negative tolerance for |v| > 1 means no early stop: Newton steps at the mode move v by "
        "rounding only",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_31": "a tolerance at most twice as loose: Newton has converged quadratically, the mode moves "
        "by < 1e-11",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_39": "a damped Newton step (contraction <= 1/2 per step) converges to the same mode well "
        "within the 200 iterations",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_44": "q(new) exactly equal to the threshold never happens",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_45": "also halves, once, steps that gain less than 1e-12 relative: only at convergence; the "
        "same mode",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_47": "the backtracking threshold differs by less than 1e-12: only steps at convergence are "
        "affected",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_48": "only overshoots losing more than |q| are backtracked (an overflow, q = -inf, still is); "
        "from above the mode Newton on this concave score converges monotonically to the same "
        "mode",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_49": "the threshold differs by 2e-12 |q|: only steps at convergence are affected",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_50": "the threshold differs by 1e-12: only steps at convergence are affected",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_61": "an overshooting step is replaced by a small one instead of halved: the search still "
        "converges to the same mode (checked on the extreme speakers of "
        "test_poisson_mixed_speaker_loglik)",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_69": "q(new) exactly equal to q(v) only at convergence, where one more halving changes v by "
        "rounding",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_72": "|step| exactly 1e-14 never happens",
        "fairdesk.stats.regression.poisson_mixed.xǁ_Marginalǁ_modes__mutmut_73": "overshoots are cut to |step| <= 1 rather than to an improving step; from above the mode "
        "Newton converges monotonically to the same mode",
        "fairdesk.stats.regression.poisson_mixed.x_fit_poisson_mixed__mutmut_136": "defensive branch: at the returned maximum (fixed sigma, interior estimate, or the GLM at "
        "the boundary) the information is positive definite and its inverse has a positive "
        "diagonal",
        # stats_reg: linear, fits, results, data, run
        "fairdesk.stats.regression.linear.x__literal__mutmut_3": "the first search from the start of the name: a match before the literal gives an empty "
        "slice, which does not parse, so the search goes on to the same match",
        "fairdesk.stats.regression.linear.x__literal__mutmut_5": "the first search from the start of the name: a match before the literal gives an empty "
        "slice, which does not parse, so the search goes on to the same match",
        "fairdesk.stats.regression.linear.x__literal__mutmut_7": "a separator at position 0 cannot occur: the name starts with 'C(Q(' and the search "
        "starts after it",
        "fairdesk.stats.regression.linear.x__literal__mutmut_8": "a separator at position 0 cannot occur: the name starts with 'C(Q(' and the search "
        "starts after it",
        "fairdesk.stats.regression.fits.x__rank__mutmut_3": "hermitian=None: matrix_rank uses SVD instead of eigvalsh; the Gram matrix is symmetric "
        "PSD, so its singular values are its eigenvalues: same rank",
        "fairdesk.stats.regression.fits.x__rank__mutmut_5": "hermitian left at its default False: SVD instead of eigvalsh on the symmetric PSD Gram "
        "matrix gives the same rank",
        "fairdesk.stats.regression.fits.x__rank__mutmut_6": "hermitian=False: SVD instead of eigvalsh on the symmetric PSD Gram matrix gives the same "
        "rank",
        "fairdesk.stats.regression.run.x_run_regression__mutmut_146": "to_numpy(dtype=None): the astype(str) column already gives an object array",
        "fairdesk.stats.regression.data.x__prepare__mutmut_115": "astype(None) is astype(float64): the same float error counts",
        "fairdesk.stats.regression.data.x__prepare__mutmut_119": "errors='raise' is pd.to_numeric's default",
        "fairdesk.stats.regression.data.x__prepare__mutmut_123": "astype(None) is astype(float64): the same float word counts",
        "fairdesk.stats.regression.data.x__prepare__mutmut_127": "errors='raise' is pd.to_numeric's default",
        "fairdesk.stats.regression.fits.x__design__mutmut_26": "astype(None) is astype(float64): the same 0/1 float dummy",
        "fairdesk.stats.regression.fits.x__design__mutmut_31": "_Design.names is never read: a None name changes nothing",
        "fairdesk.stats.regression.fits.x__design__mutmut_7": "_Design.names is never read: the intercept's name changes nothing",
        "fairdesk.stats.regression.data.x__prepare__mutmut_34": "astype(None) is astype(float64): the bool outcome becomes the same 0.0/1.0",
        "fairdesk.stats.regression.data.x__prepare__mutmut_275": "counts.get's default is never used: every level in ordered was counted among the labels",
        "fairdesk.stats.regression.data.x__prepare__mutmut_277": "counts.get's default is never used: every level in ordered was counted among the labels",
        "fairdesk.stats.regression.data.x__prepare__mutmut_278": "counts.get's default is never used: every level in ordered was counted among the labels",
        "fairdesk.stats.regression.fits.x__design__mutmut_8": "_Design.names is never read: the intercept's name changes nothing",
        "fairdesk.stats.regression.fits.x__design__mutmut_9": "_Design.names is never read: the intercept's name changes nothing",
        "fairdesk.stats.regression.fits.x__design__mutmut_70": "hermitian=None: SVD instead of eigvalsh on a symmetric PSD Gram block gives the same "
        "rank",
        "fairdesk.stats.regression.fits.x__design__mutmut_72": "hermitian left at its default False: SVD instead of eigvalsh on a symmetric PSD Gram "
        "block gives the same rank",
        "fairdesk.stats.regression.fits.x__design__mutmut_77": "hermitian=False: SVD instead of eigvalsh on a symmetric PSD Gram block gives the same "
        "rank",
        "fairdesk.stats.regression.fits.x__design__mutmut_83": "_Design.names is never read: a None name changes nothing",
        "fairdesk.stats.regression.fits.x__design__mutmut_86": "_Design.names is never read: names=None changes nothing",
        "fairdesk.stats.regression.data.x__prepare__mutmut_36": "astype(None) is astype(float64): the same float outcome",
        "fairdesk.stats.regression.data.x__prepare__mutmut_40": "errors='raise' is pd.to_numeric's default",
        "fairdesk.stats.regression.fits.x__fit__mutmut_14": "statsmodels reads cov_type case-insensitively (cov_type.lower())",
        "fairdesk.stats.regression.fits.x__fit__mutmut_102": "Logit's mle_retvals always holds 'converged': the default is never used",
        "fairdesk.stats.regression.fits.x__fit__mutmut_104": "Logit's mle_retvals always holds 'converged': the default is never used",
        "fairdesk.stats.regression.fits.x__fit__mutmut_107": "Logit's mle_retvals always holds 'converged': the default is never used",
        "fairdesk.stats.regression.fits.x__fit__mutmut_123": "res.params is already a float64 array (ndarray design): asarray without dtype is the "
        "same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_125": "res.params is already a float64 array (ndarray design): asarray without dtype is the "
        "same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_128": "res.bse is already a float64 array (ndarray design): asarray without dtype is the same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_130": "res.bse is already a float64 array (ndarray design): asarray without dtype is the same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_133": "_Fit.bse is never read (the finiteness check uses the local bse)",
        "fairdesk.stats.regression.fits.x__fit__mutmut_43": "astype(None) is astype(float64): the same 0.0/1.0 word rows",
        "fairdesk.stats.regression.fits.x__fit__mutmut_147": "res.pvalues is already a float64 array (ndarray design): asarray without dtype is the "
        "same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_149": "res.pvalues is already a float64 array (ndarray design): asarray without dtype is the "
        "same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_151": "conf_int of an ndarray design is already a float64 array: asarray without dtype is the "
        "same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_153": "conf_int of an ndarray design is already a float64 array: asarray without dtype is the "
        "same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_156": "cov_params of an ndarray design is already a float64 array: asarray without dtype is the "
        "same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_158": "cov_params of an ndarray design is already a float64 array: asarray without dtype is the "
        "same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_166": "> vs >= _MAX_ABS_COEF: differs only for a fitted |coefficient| of exactly 20.0",
        "fairdesk.stats.regression.fits.x__fit__mutmut_59": "GEE maxiter 101 instead of 100: the fits here converge well before",
        "fairdesk.stats.regression.fits.x__fit__mutmut_64": "GEE results always have 'converged': getattr's default is never used",
        "fairdesk.stats.regression.fits.x__fit__mutmut_67": "GEE results always have 'converged': getattr without a default reads the same",
        "fairdesk.stats.regression.fits.x__fit__mutmut_70": "GEE results always have 'converged': getattr's default is never used",
        "fairdesk.stats.regression.fits.x__fit__mutmut_71": "a GEE fit's llf/llnull are never read (its tests are Wald tests, its pseudo-R² is NaN)",
        "fairdesk.stats.regression.fits.x__fit__mutmut_88": "disp=None: falsy, statsmodels prints nothing, as with disp=0",
        "fairdesk.stats.regression.fits.x__fit__mutmut_91": "Logit maxiter left at newton's 35: the fits here converge well before, and a separated "
        "fit is refused either way",
        "fairdesk.stats.regression.fits.x__fit__mutmut_98": "Logit maxiter 101 instead of 100: the fits here converge well before",
        "fairdesk.stats.regression.fits.x__separation__mutmut_26": "groupby(sort=None): falsy, groups in order of appearance as with sort=False",
        "fairdesk.stats.regression.fits.x__wald__mutmut_14": "df is never 0 (the covariance block of estimated terms is non-zero); chi2.sf with df 0 "
        "would be NaN anyway",
    }
)


#: Equivalent by the shape of the change (regex on the mutant's diff -> why). Only changes
#: that cannot alter a result on any input are listed.
EQUIVALENT_DIFFS: list[tuple[str, str]] = [
    (
        r"^- .*zip\(.*strict=True\).* \| \+ .*zip\(.*(strict=(None|False)|, \))",
        "zip(strict=True) relaxed where the sequences have equal length by construction",
    ),
    (
        r"ensure_ascii=False.* \| \+ .*ensure_ascii=None",
        "ensure_ascii=None is falsy: json reads it as False",
    ),
    (
        r"^- +(in_str = esc|in_str|esc) = False \| \+ +(in_str = esc|in_str|esc) = None$",
        "a flag set to None instead of False: only its truth is read",
    ),
    (
        r"^- .*np\.errstate\(.* \| \+ .*np\.errstate\(",
        "np.errstate only silences warnings; the values are the same",
    ),
    (
        r"^- .*\"(SELECT|INSERT|UPDATE|DELETE)\b.* \| \+ .*\"(select|insert|update|delete|SELECT|INSERT"
        r"|UPDATE|DELETE)\b",
        "SQL keyword or identifier case: SQLite is case-insensitive there",
    ),
]


#: Equivalent in the named functions only (mutant-name prefix, regex on the diff, why): changes
#: that cannot alter a result there, though the same text elsewhere might.
EQUIVALENT_IN: list[tuple[str, str, str]] = [
    # core: the importer's SQL and its sqlite3.Row lookups
    (
        "fairdesk.core.importers.x_",
        r"^- (?=.*\b(SELECT|INSERT|UPDATE|DELETE|FROM|WHERE|VALUES|SET)\b)"
        r"(?P<a>[^|]*) \| \+ (?P<b>[^|]*)$",
        "SQL keyword or identifier case inside an SQL string: SQLite is case-insensitive there",
    ),
    (
        "fairdesk.core.importers.x_",
        r"\b(r|row|old)\[[\"'][a-z_]+[\"']\].* \| \+ .*\b(r|row|old)\[[\"']"
        r"[A-Z_]+[\"']\]",
        "sqlite3.Row column lookup in upper case: sqlite3.Row matches column names case-insensitively",
    ),
    (
        "fairdesk.core.importers.x_import_dataset",
        r"workers = max\(1, min\(4, os\.cpu_count\(\) or 1\)\)"
        r"|ThreadPoolExecutor\(workers\) as pool: \| \+ .*ThreadPoolExecutor\(None\)",
        "number of threads probing the audio: pool.map returns the results in order, only the "
        "speed changes",
    ),
    (
        "fairdesk.core.importers.x_import_dataset",
        r"progress\(n / max\(1, len\(todo\)\).* \| \+ .*"
        r"progress\(n / max\(2, len\(todo\)\)",
        "progress is called only at n % 50 == 0, so len(todo) >= 50 there",
    ),
    (
        "fairdesk.core.importers.x_import_dataset",
        r"^- +break \| \+ +continue$",
        "the manifest-file loop: after the first match path is that file, so no later name exists "
        "under it",
    ),
    (
        "fairdesk.core.importers.x__write_status",
        r"json\.dumps\(list\(info\.warnings\), "
        r"ensure_ascii=False\).* \| \+ .*json\.dumps\(list\(info\.warnings\), "
        r"(ensure_ascii=(None|True)\)|\))",
        "ensure_ascii on the audio warnings: every warning is ASCII text (fixed words and numbers)",
    ),
    (
        "fairdesk.core.importers_l2arctic.x_parse_phones_tier",
        r"includeEmptyIntervals=False\) \| \+ .*includeEmptyIntervals=(None|True)\)",
        "empty intervals read or not: their label '' is no phone (_phone) and no error label",
    ),
    (
        "fairdesk.core.importers_formats.x_read_commonvoice",
        r"audio_col=\"path\".* \| \+ .*(audio_col=None|"
        r"clips, text_col=)",
        "Common Voice's audio column: 'path' is the first name the default pick looks for",
    ),
    # metrics: the hallucination flags' inputs
    (
        "fairdesk.metrics.",
        r"language: str = \"en\".* \| \+.*language: str = \"EN\"",
        "'EN' as the default language is English too (is_english lower-cases it)",
    ),
    (
        "fairdesk.metrics.hallucination.x_hallucination_columns",
        r"to_numpy\(dtype=object\) .*\| \+ .*to_numpy\(dtype=None\)",
        "a column as its own dtype instead of object: the same values; a float column of missing "
        "cells gives NaN keys that miss the memo, and those rows are checked again with the same "
        "result",
    ),
    (
        "fairdesk.metrics.hallucination.x_hallucination_columns",
        r"<= set\(frame\.columns\) \| \+ .*< set\(frame\.columns\)",
        "a proper subset: the frame always has reference and hypothesis besides the two decodes",
    ),
    (
        "fairdesk.metrics.hallucination.x_hallucination_columns",
        r"if \(isinstance\(v, \(list, dict\)\)\) or True else v|sort_keys=True, default=_plain\) .*\| "
        r"\+ .*json\.dumps\(v, (sort_keys=(None|False), )?default=_plain\)",
        "the memo key of a row: any text that tells distinct inputs apart serves (a miss only "
        "checks the row again, with the same result)",
    ),
    (
        "fairdesk.metrics.normalize.x_basic",
        r"if \(s\) or True else",
        "the basic normaliser of '' is ''",
    ),
    # stats_boot: the resampling engine
    (
        "fairdesk.stats.bootstrap.x__codes",
        r"np\.asarray\(uniq, dtype=object\) \| \+ .*np\.asarray\("
        r"uniq, (dtype=None)?\)|np\.array\(\[None\] \* n_missing, dtype=object\)\]\) \| \+ .*"
        r"np\.array\(\[None\] \* n_missing, (dtype=None)?\)",
        "the speaker labels come from an object array (factorize keeps object labels) and a list "
        "of None is an object array already",
    ),
    (
        "fairdesk.stats.bootstrap.x__codes",
        r"pd\.factorize\(np\.where\((missing|None), None, values\) "
        r"if (\(missing\.any\(\)\) (and False|or True)|missing\.any\(\))",
        "factorize gives a missing label the code -1 and leaves it out of the labels whether or not "
        "it was made None first; the missing rows are renumbered after",
    ),
    (
        "fairdesk.stats.bootstrap.x_shared_contents",
        r"kind in \"XXiuXX\"",
        "'i' and 'u' are in 'XXiuXX' as in 'iu': the same test of the dtype kind",
    ),
    (
        "fairdesk.stats.bootstrap.x__missing_mask",
        r"kind in \"XXiuXX\"",
        "'i' and 'u' are in 'XXiuXX' as in 'iu': the same test of the dtype kind",
    ),
    (
        "fairdesk.stats.bootstrap.x_bootstrap_pair",
        r"Mr = _content_major\(Tr\) if rb\.draw_rows and "
        r"rb\.draw_cols else None \| \+ +Mr = (None|_content_major\(Tr\) if .* else None)$",
        "the reference's content-major matrix made up front or not: _weighted_sums makes the same "
        "one per chunk when it needs one and ignores it otherwise (the draws' type, float32 or "
        "not, holds the same whole numbers)",
    ),
    (
        "fairdesk.stats.bootstrap.x_bootstrap_pair",
        r"^- +wdt = _draw_dtype\(Mg, Mr\) \| \+ +wdt = "
        r"(None|_draw_dtype\([^|]*\))$|draw_counts\(rng, C, m, dtype=wdt\) if gb\.draw_cols else None"
        r" \| \+ .*draw_counts\(rng, C, m, (dtype=None)?\) if gb\.draw_cols else None$"
        r"|w\.astype\(Mg\.dtype, copy=False\) @ Mg\).* \| \+ .*w\.astype\(None, copy=False\) @ Mg\)",
        "the content draws as float64 instead of float32: the same whole numbers, converted to the "
        "product's type where they are used",
    ),
    (
        "fairdesk.stats.bootstrap.x_bootstrap_pair",
        r"dtype=wdt\) if gb\.draw_cols else None \| \+ .*"
        r"if \(gb\.draw_cols\) or True else None$",
        "a content draw where no content is drawn: the one block (C = 1) is drawn once every time, "
        "which takes nothing from the generator, and a weight of 1 changes no sum",
    ),
    (
        "fairdesk.stats.bootstrap.x_bootstrap_pair",
        r"_weighted_sums\(T([gr]), u\1, w, M\1\) \| \+ .*"
        r"_weighted_sums\(T\1, u\1, w, (None)?\)$",
        "the content-major matrix not passed: _weighted_sums makes the same one",
    ),
    (
        "fairdesk.stats.bootstrap.x_bootstrap_pair",
        r"np\.einsum\(\"bs,bsk->bk\", ug, totals\[b0:b1\]\."
        r"astype\(float\)\) \| \+ .*np\.einsum\((\"BS,BSK->BK\", ug, totals\[b0:b1\]\.astype\(float\)|"
        r"\"bs,bsk->bk\", ug, totals\[b0:b1\]\.astype\(None\))\)$",
        "einsum subscripts in upper case name the same axes; astype(None) is float64 too",
    ),
    (
        "fairdesk.stats.bootstrap.x_bootstrap_pair",
        r"w\.max\(initial=0\) > 255: \| \+ .*"
        r"w\.max\(initial=(None|1)\) > 255:$",
        "the content draw is never empty (a paired scheme has at least 5 shared contents), so "
        "max's initial value changes nothing at the 255 bound",
    ),
    (
        "fairdesk.stats.bootstrap.x_bootstrap_pair",
        r"w\.astype\(Mg\.dtype, copy=False\) @ Mg\).* \| \+ .*"
        r"w\.astype\(Mg\.dtype, (copy=None|copy=True|)\) @ Mg\)",
        "astype's copy flag: a copy or not, the same numbers go into the product",
    ),
    (
        "fairdesk.stats.bootstrap.x_bootstrap_pair",
        r"w_all\.astype\(float\), \| \+ .*w_all\.astype\(None\),$",
        "astype(None) is float64, as float is",
    ),
    (
        "fairdesk.stats.bootstrap.x__weighted_sums",
        r"M = _content_major\(T\) if M is None else M \| \+ .*"
        r"if \(M is None\) or True else M$",
        "the content-major matrix made again when passed: the same matrix",
    ),
    (
        "fairdesk.stats.bootstrap.x__weighted_sums",
        r"\.reshape\(len\(w\), S, K\)\.astype\(float\) \| \+ .*"
        r"(\.astype\(None\)$|w\.astype\(None, copy=False\) @ M|w\.astype\(M\.dtype, (copy=None|copy=True|)\) @ M)",
        "float64 for float (astype(None)), float64 draws (whole numbers, the same products) or "
        "astype's copy flag: the same numbers",
    ),
    (
        "fairdesk.stats.bootstrap.x__weighted_sums",
        r"np\.einsum\(\"bs,bsk->bk\", u, Y\) \| \+ .*"
        r"np\.einsum\(\"BS,BSK->BK\", u, Y\)$",
        "einsum subscripts in upper case name the same axes",
    ),
    (
        "fairdesk.stats.bootstrap.x__row_counts",
        r"step = max\(1, _COUNT_BLOCK // max\(1, n_blocks\)\) \| \+ .*"
        r"step = max\(([12]), _COUNT_BLOCK // max\((?!\1)[12], n_blocks\)\)$",
        "rows counted per bincount (a cache-sized block): any number of rows gives the same counts",
    ),
    (
        "fairdesk.stats.bootstrap.x__row_counts",
        r"wide = np\.int32 if step \* n_blocks < np\.iinfo\(np\.int32\)"
        r"\.max else np\.int64 \| \+ ",
        "the offsets' integer type: step·n_blocks is at most max(2^16, n_blocks), far below 2^31 "
        "for any count vector that fits in memory, so int32 and int64 give the same counts",
    ),
    (
        "fairdesk.stats.bootstrap.x__row_counts",
        r"np\.arange\(min\(step, n\), dtype=wide\) \* n_blocks\)\[:, "
        r"None\] \| \+ .*np\.arange\(min\(step, n\), (dtype=None)?\) \* n_blocks\)\[:, None\]$",
        "the offsets as int64: the in-place add into the rows' type gives the same small numbers",
    ),
    (
        "fairdesk.stats.bootstrap.x__row_counts",
        r"^- +for a in range\(0, n, step\): \| \+ +for a in range\(0, n, \):$",
        "a block of rows started at every row instead of every step-th: each block writes the "
        "same counts for its rows, later blocks only write them again",
    ),
    (
        "fairdesk.stats.bootstrap.x__row_counts",
        r"idx\.reshape\(-1, idx\.shape\[-1\]\) \| \+ .*"
        r"idx\.reshape\(-2, idx\.shape\[-1\]\)$",
        "numpy reads any negative size in reshape as 'the rest', as -1",
    ),
    (
        "fairdesk.stats.bootstrap.x_draw_counts",
        r"rng\.integers\(0, n_blocks, size=\(n_rep, n_draw\), "
        r"dtype=small\) \| \+ .*rng\.integers\(n_blocks, size=\(n_rep, n_draw\), dtype=small\)$",
        "integers(n) draws from [0, n) as integers(0, n) does, from the same stream",
    ),
    (
        "fairdesk.stats.bootstrap.x__side_blocks",
        r"cc\[_missing_mask\(contents\)\] = -1 \| \+ .*= -2$",
        "-2 for -1 as the code of a missing content: any negative code is dropped by cc >= 0",
    ),
    (
        "fairdesk.stats.bootstrap.x__side_blocks",
        r"np\.asarray\(side\.stats, dtype=float\) \| \+ .*"
        r"np\.asarray\(side\.stats, (dtype=None)?\)",
        "the statistics reach the block sums only as bincount weights, which bincount takes as "
        "float64 whatever their type",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"width = C \+ max\(b\[2\] for b in blocks\) \* "
        r"\(K \+ 1\) \| \+ ",
        "the chunk width (memory bound): only how the replicates are split into chunks, and so "
        "the split of the random stream, changes",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"col_of = np\.full\(len\(X\), -1, .* \| \+ .*"
        r"np\.full\(len\(X\), (\+1|-2), ",
        "the fill of rows outside the strata: only rows inside them are read",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"^- +C = 1 \| \+ +C = 2$",
        "without a content draw C only sizes the chunks (n_contents is None and w is None)",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"r, S = np\.zeros\(len\(idx\), dtype=np\.int64\), 1 \| \+ .*, 2$",
        "the content scheme's one row block given an extra all-zero block: rows are not drawn "
        "there, so the sums are the same; only the chunk width changes",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"present, c_local = np\.zeros\(1, dtype=np\.int64\)"
        r".* \| \+ .*present, c_local = np\.zeros\((1, (dtype=None)?|2, dtype=np\.int64)\)",
        "without a content draw present is only counted; an extra all-zero column adds nothing to "
        "the sums (no content weights there)",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"if \((draw_cols|draw_rows)\) or True else None",
        "a draw of one block is all ones and takes nothing from the generator; all-ones weights "
        "give the same sums as none",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"wl = None if \(w is None\) and False else|"
        r"wl = None if w is None else \(w if \(len\(present\) == C\) and False else",
        "w is None only without a content draw, where present is one block and C = 1 (w as it "
        "is); w[:, present] with every column present is w",
    ),
    (
        "fairdesk.stats.",
        r"np\.asarray\(spec\.compute\(.*\), dtype=float\).* \| \+ .*"
        r"np\.asarray\(spec\.compute\(.*\), (dtype=None)?\)",
        "spec.compute of float sums (the statistics are float arrays) returns float already: "
        "asarray's dtype changes nothing",
    ),
    (
        "fairdesk.stats.comparison.x_finish",
        r"^- +confounded = False \| \+ +confounded = None$",
        "only the truth of confounded is read (decide_verdict)",
    ),
    (
        "fairdesk.stats.compare.x__leave_speakers_out",
        r"pc\.p_value < settings\.alpha\] \| \+ .*pc\.p_value <= settings\.alpha\]",
        "a comparison with p = alpha is never significant after Holm (p_adj >= p), so its "
        "jackknife is never read; the group's one jackknife draw is the same either way",
    ),
    (
        "fairdesk.stats.comparison.x_pending_one",
        r"pb=pb, .* \| \+ .*pb=None, ",
        "compare_one replaces pc.pb (by the slimmed bootstrap, or None) before anything reads "
        "it; pending_one itself uses its argument",
    ),
    (
        "fairdesk.stats.groupci.x__local",
        r"codes\.max\(initial=-1\) \+ 1 \+ .* \| \+ .*codes\.max\("
        r"initial=(None|\+1|-2)\) \+ 1|codes\.max\(initial=-1\) \+ 2",
        "the missing codes need only be distinct and above every present code: np.unique "
        "renumbers them densely (the array is never empty here)",
    ),
    (
        "fairdesk.stats.groupci.x_",
        r"np\.asarray\((codes|content_codes|group_codes), dtype=np\.int64\)"
        r".* \| \+ .*np\.asarray\((codes|content_codes|group_codes), (dtype=None)?\)",
        "speaker, content and group codes are integer arrays already (built by the slicing)",
    ),
    (
        "fairdesk.stats.groupci.x_groups_sharing_content",
        r"out = np\.zeros\(n_groups, dtype=bool\) \| \+ .*np\.zeros\(n_groups, (dtype=None)?\)",
        "a float 0/1 array instead of bool: each entry is read through bool() (group_intervals, "
        "shares_content)",
    ),
    (
        "fairdesk.stats.groupci.x_groups_sharing_content",
        r"n_c = int\(c\[ok\]\.max\(\)\) \+ 2",
        "a larger base for the (group, content) code: the pairs stay distinct and decode the same",
    ),
    (
        "fairdesk.stats.groupci.x_groups_sharing_content",
        r"minlength=(n_c|len\(groups\))\) .*\| \+ "
        r".*np\.bincount\((pc|pg), (weights=in_groups\[pc\] >= 2, )?\)",
        "every content and group code in the arrays occurs in some pair, so bincount already has "
        "that length",
    ),
    (
        "fairdesk.stats.groupci.x_shares_content",
        r"g_code - lo \+ 1\)\[g_code - lo\]\).* \| \+ .*"
        r"g_code - lo \+ 2\)\[g_code - lo\]",
        "one more (empty) group slot, never read",
    ),
    (
        "fairdesk.stats.jackknife.x_jackknife_flips",
        r"np\.minimum\(1\.0, multiplier \* p_j\) \| \+ .*np\.minimum\(2\.0, multiplier \* p_j\)",
        "adjusted p above 1 is only compared with alpha < 1: the same comparisons are non-significant",
    ),
    (
        "fairdesk.stats.bootstrap.x_jackknife_group_speakers",
        r"(astype\(float\)|w\.astype\(M\.dtype\)).* \| \+ .*(astype\(None\))",
        "astype(None) is float64, as astype(float); the content-draw product (integer counts times "
        "totals stored exactly) is exact in either precision",
    ),
    (
        "fairdesk.stats.bootstrap.x_jackknife_group_speakers",
        r"np\.einsum\(\"jbs,bsk->jbk\".* \| \+ .*np\.einsum\(\"(jbs,bsk->jbk|JBS,BSK->JBK)\", "
        r"u\.astype\((float|None)\), W, (optimize=(True|None|False))?\)",
        "einsum of two operands: optimize only picks the contraction path, upper-case subscripts "
        "are the same labels, astype(None) is float64",
    ),
    (
        "fairdesk.stats.bootstrap.x_jackknife_group_speakers",
        r"idx \+= idx >= js\.astype\(small\).* \| \+ .*js\.astype\(None\)",
        "comparing the draws with the left-out index as int16 or float64 gives the same booleans",
    ),
    (
        "fairdesk.stats.bootstrap.x_jackknife_group_speakers",
        r"rng\.integers\(0, S - 1, .* \| \+ .*rng\.integers\(S - 1, size",
        "integers(S - 1) is integers(0, S - 1): the same call",
    ),
    (
        "fairdesk.stats.bootstrap.x_jackknife_group_speakers",
        r"(step = max\(1, _CHUNK_ELEMENTS // max\(1, B \* S\)\)|js = np\.arange\(j0, min\(S, "
        r"j0 \+ step\)\))",
        "the jackknife's chunking (memory bound, several chunks only when B·S² exceeds 4e6): each "
        "leave-one-out is still drawn without its speaker, only the split of the random stream "
        "changes",
    ),
    (
        "fairdesk.stats.bootstrap.x_jackknife_group_speakers",
        r"small = np\.int16 if S <= np\.iinfo\(np\.int16\)\.max",
        "the int16 draws' bound: needs a group of 32,767 speakers (a jackknife of 10^9 draws) to "
        "reach",
    ),
    (
        "fairdesk.stats.compare.x__compare_groups",
        r"(groups|speakers|contents) = .*\.to_numpy\(dtype=object\) \| \+ .*\.to_numpy\(dtype=None\)",
        "group, speaker and content labels go only through pd.factorize (or str of an object "
        "column): the same codes whether the array is object or the column's own dtype",
    ),
    (
        "fairdesk.stats.compare.x__compare_groups",
        r"n_items = np\.bincount\(codes, minlength=len\(labels\)\) \| \+ +n_items = np\.bincount"
        r"\(codes, \)",
        "labels come from pd.factorize of the same groups, so every code occurs and the count "
        "already has len(labels) entries",
    ),
    (
        "fairdesk.stats.compare.x__compare_groups",
        r"if ref is not None else \[\] \| \+ .*if \(ref is not None\) or True else \[\]",
        "ref is None only when no group is kept (choose_reference picks one or raises otherwise): "
        "the list over the kept groups is empty either way",
    ),
    (
        "fairdesk.stats.compare.x__compare_groups",
        r"problem = (None if scheme else units_problem|units_problem\(units, scheme, g, ref\) if)"
        r".* \| \+ .*(\(scheme\) and False|\(too_few\(units\)\) or True)",
        "units_problem returns None exactly when too_few is False (the same MIN_UNITS test on the "
        "same axes), so asking it also when the units suffice changes nothing",
    ),
    (
        "fairdesk.stats.compare.x__compare_groups",
        r"keep_totals=True\) \| \+ +(keep_totals=(None|False))?\)$",
        "keep_totals only caches the group's per-speaker totals under each content draw; "
        "without it the jackknife rebuilds them from the kept content counts (the same whole "
        "numbers, so the same leave-one-out p-values)",
    ),
    (
        "fairdesk.stats.compare.x__compare_groups",
        r"p_raw = np\.full\(len\(pending\), np\.nan\) \| \+ +p_raw = np\.full\(len\(pending\), None\)",
        "holm_adjust and holm_multipliers read the p-values with np.asarray(dtype=float), where "
        "None becomes NaN",
    ),
    (
        "fairdesk.stats.groupci.x_group_intervals",
        r"(n_spk = 0 \| \+ +n_spk = (None|1)$|k_min = None \| \+ +k_min = \"\"$|k_min if \(?k_min is not "
        r"None\)? (or True )?else [01], .* \| \+ .*k_min if \(?k_min is not None\)? (or True )?else [01], )",
        "the speaker count given to value_scheme without speaker ids: without them no scheme "
        "is two_way or speaker, so value_scheme never reads it",
    ),
    (
        "fairdesk.stats.groupci.x_group_intervals",
        r"vb = ValueBootstrap\(None, X\[(idx|rows)\]\.sum\(axis=0\), .* \| \+ +vb = ValueBootstrap\(None, "
        r"(None, None, n_spk, None, len\(idx\)|X\[idx\]\.sum\(axis=0\), None, (None, None, len\(idx\)|n_spk, "
        r"None, None)|X\[idx\]\.sum\(axis=(None|1)\), None, n_spk)",
        "a group without a scheme: metric_ci reads only its reps (None: not estimable with its "
        "problem) and scaled; the point, speaker and item counts stored beside are never read",
    ),
    (
        "fairdesk.stats.groupci.x_group_intervals",
        r"ValueBootstrap\(None, X\[rows\]\.sum\(axis=0\), None, None, None, len\(rows\), \| \+ "
        r".*None, None, None, None,$",
        "the corpus entry's n_items is len(rows), not the ValueBootstrap's item count",
    ),
    (
        "fairdesk.stats.groupci.x_group_intervals",
        r"shared_n = 0 if contents is None else .* \| \+ +shared_n = 1 if contents is None",
        "without content ids 0 and 1 shared contents are both below MIN_SHARED_CONTENT (5)",
    ),
    (
        "fairdesk.stats.groupci.x_group_intervals",
        r"sharing = \(np\.zeros\(len\(labels\), dtype=bool\) .* \| \+ +sharing = \(np\.zeros\("
        r"len\(labels\), (dtype=None)?\)",
        "float zeros instead of False: only bool(sharing[g]) is read",
    ),
    (
        "fairdesk.stats.groupci.x_percentile_ci",
        r"v = np\.asarray\(values, dtype=float\) \| \+ +v = np\.asarray\(values, (dtype=None)?\)",
        "both callers pass float arrays of finite replicate values",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"rows_all = np\.concatenate\(strata\) if strata else np\.array\(\[\], dtype=np\.int64\) \| \+ ",
        "the no-strata branch is unreachable: both callers pass at least one stratum "
        "(group_intervals concatenates its strata before the call), and with none the function "
        "fails at max() over no blocks either way",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"(M = _content_major\(T\) if draw_cols and draw_rows else None .* \| \+ "
        r"|out = _weighted_sums\(T, us\[k\], wl, M\) \| \+ |wdt = _draw_dtype\(.* \| \+ +wdt = None"
        r"|draw_counts\(rng, C, m, dtype=wdt\) if draw_cols else None \| \+ .*draw_counts\(rng, C, m, "
        r"(dtype=None)?\) if draw_cols)",
        "M caches _content_major(T): _weighted_sums rebuilds it when None and reads it only when "
        "both draws are given; the content counts' dtype is a cast after the draw (the same "
        "draws) and whole counts times whole sums are exact in float32 and float64 alike",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"col_of = np\.full\(len\(X\), -1, dtype=np\.int64\) \| \+ +col_of = np\.full\(len\(X\), -1, "
        r"(dtype=None)?\)",
        "np.full without a dtype takes the fill value's: -1 gives int64 already",
    ),
    (
        "fairdesk.stats.groupci.x_bootstrap_value",
        r"X = np\.asarray\(X, dtype=float\) \| \+ +X = np\.asarray\(X, (dtype=None)?\)",
        "group_intervals passes compare's float statistics matrix (to_numpy(dtype=float))",
    ),
    (
        "fairdesk.stats.resampled.x_resampled_columns",
        r"if \(len\(key\) == 1\) and False else",
        "the sum over one column is that column (non-negative float counts)",
    ),
]


def _case_only(diff: str) -> bool:
    """The diff changes only the case of one line."""
    m = re.fullmatch(r"- (?P<a>[^|]*) \| \+ (?P<b>[^|]*)", diff)
    return bool(m) and m["a"] != m["b"] and m["a"].lower() == m["b"].lower()


def _why_not(name: str, diff: str = "") -> str | None:
    """The reason a survivor cannot be killed (equivalent, or never activated), else None."""
    for pattern, why in EQUIVALENT_DIFFS:
        if re.search(pattern, diff):
            return f"EQUIVALENT: {why}"
    for prefix, pattern, why in EQUIVALENT_IN:
        if not name.startswith(prefix) or not re.search(pattern, diff):
            continue
        if why.startswith(("SQL keyword", "sqlite3.Row")) and not _case_only(diff):
            continue
        return f"EQUIVALENT: {why}"
    if name in EQUIVALENT:
        return f"EQUIVALENT: {EQUIVALENT[name]}"
    for prefix, why in NOT_ACTIVATABLE.items():
        if name.startswith(prefix):
            return f"NOT ACTIVATED: {why}"
    return None


# FAIRDESK_TEST_HARD_EXIT=0: mutmut runs pytest inside its own process, which the suite's
# os._exit at unconfigure (tests/conftest.py) would end.
PYTEST_ENV = {
    "QT_QPA_PLATFORM": "offscreen",
    "HF_HUB_OFFLINE": "1",
    "TRANSFORMERS_OFFLINE": "1",
    "FAIRDESK_TEST_HARD_EXIT": "0",
}


def _env() -> dict[str, str]:
    env = {**os.environ, **PYTEST_ENV}
    env.pop("PYTHONPATH", None)  # the scratch copy's fairdesk, never the working tree's
    return env


def _files(globs: list[str]) -> list[Path]:
    out: list[Path] = []
    for g in globs:
        out += sorted(ROOT.glob(g))
    return out


def coverage(pkg: str, spec: dict) -> dict[str, tuple[float, float]]:
    """Line and branch coverage (%) of each file of ``pkg`` by its fast tests."""
    files = _files(spec["mutate"])
    report = Path(f"/tmp/fairdesk-cov-{pkg}-{os.getpid()}.json")
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-m",
        "not slow",
        "--cov=fairdesk",
        "--cov-branch",
        f"--cov-report=json:{report}",
        "--no-cov-on-fail",
        *spec["tests"],
    ]
    # COVERAGE_FILE: the data file goes to /tmp, never into the working tree
    env = {
        **_env(),
        "PYTHONPATH": str(ROOT),
        "COVERAGE_FILE": f"/tmp/fairdesk-cov-{pkg}-{os.getpid()}.data",
    }
    r = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    Path(env["COVERAGE_FILE"]).unlink(missing_ok=True)
    if r.returncode != 0 or not report.exists():
        print(r.stdout[-3000:], r.stderr[-3000:])
        raise SystemExit(f"{pkg}: the fast tests fail on the unmutated code; fix that first")
    data = json.loads(report.read_text())["files"]
    report.unlink()
    out = {}
    for f in files:
        rel = f.relative_to(ROOT).as_posix()
        s = data.get(rel, {}).get("summary")
        if s is None:
            out[rel] = (0.0, 0.0)
            continue
        lines = 100.0 * s["covered_lines"] / max(1, s["num_statements"])
        branches = 100.0 * s["covered_branches"] / max(1, s["num_branches"])
        out[rel] = (lines, branches)
    return out


def _prepare(pkg: str, spec: dict, workdir: Path) -> Path:
    work = workdir / pkg
    work.mkdir(parents=True, exist_ok=True)
    for name in ("fairdesk", "tests", "resources"):
        if (work / name).exists():
            shutil.rmtree(work / name)
        shutil.copytree(
            ROOT / name, work / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc")
        )
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    text = re.sub(r"\n\[tool\.mutmut\].*?(?=\n\[|\Z)", "", text, flags=re.S)
    quoted = ", ".join(json.dumps(t) for t in spec["tests"])
    only = ", ".join(json.dumps(g) for g in spec["mutate"])
    text += (
        "\n[tool.mutmut]\n"
        'source_paths = ["fairdesk"]\n'
        'also_copy = ["resources"]\n'
        f"only_mutate = [{only}]\n"
        f"pytest_add_cli_args_test_selection = [{quoted}]\n"
        'pytest_add_cli_args = ["-p", "no:cacheprovider", "-m", "not slow", "-x", "-q"]\n'
        "use_git_change_detection = false\n"
        "use_setproctitle = false\n"
    )
    (work / "pyproject.toml").write_text(text, encoding="utf-8")
    return work


def _results(work: Path) -> dict[str, str]:
    r = subprocess.run(
        [sys.executable, "-m", "mutmut", "results", "--all", "true"],
        cwd=work,
        env=_env(),
        capture_output=True,
        text=True,
    )
    out = {}
    for line in r.stdout.splitlines():
        m = re.match(r"\s+(\S+): (.+)$", line)
        if m:
            out[m.group(1)] = m.group(2).strip()
    return out


_DIFFS = """
import json, sys
import mutmut.__main__ as m
out = {}
for name in json.loads(sys.stdin.read()):
    try:
        out[name] = m.get_diff_for_mutant(name, path=m.find_mutant(name).path)
    except Exception as exc:  # noqa: BLE001 - report, do not stop the listing
        out[name] = f"(no diff: {exc})"
print(json.dumps(out))
"""


def _diffs(work: Path, names: list[str]) -> dict[str, str]:
    """The changed lines of each mutant, in one call (``mutmut show`` per mutant is slow)."""
    if not names:
        return {}
    r = subprocess.run(
        [sys.executable, "-c", _DIFFS],
        cwd=work,
        env=_env(),
        input=json.dumps(names),
        capture_output=True,
        text=True,
    )
    try:
        raw = json.loads(r.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {n: f"(no diff: {r.stderr.strip()[-200:]})" for n in names}
    out = {}
    for n, diff in raw.items():
        changed = [
            ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))
        ]
        out[n] = " | ".join(ln.strip() for ln in changed)[:220]
    return out


def _matching(res: dict[str, str], patterns: list[str]) -> dict[str, str]:
    if not patterns:
        return res
    return {n: s for n, s in res.items() if any(fnmatch.fnmatch(n, p) for p in patterns)}


def mutate(
    pkg: str,
    spec: dict,
    workdir: Path,
    max_children: int,
    time_limit: float,
    rerun_survivors: bool = False,
    report_only: bool = False,
    patterns: list[str] | None = None,
) -> dict:
    t0 = time.monotonic()
    patterns = patterns or []
    if report_only:
        work = workdir / pkg
        res = _matching(_results(work), patterns)
        counts: dict[str, int] = {}
        for status in res.values():
            counts[status] = counts.get(status, 0) + 1
        return {"work": work, "results": res, "counts": counts, "capped": False, "seconds": 0.0}
    work = _prepare(pkg, spec, workdir)
    cmd = [sys.executable, "-m", "mutmut", "run", "--max-children", str(max_children)]
    if rerun_survivors:  # after new tests: run the previous survivors again (fresh copy)
        again = sorted(
            n
            for n, s in _matching(_results(work), patterns).items()
            if s in ("survived", "no tests", "not checked")
        )
        if not again:
            return mutate(
                pkg, spec, workdir, max_children, time_limit, report_only=True, patterns=patterns
            )
        cmd += again
    else:
        cmd += patterns
    try:
        r = subprocess.run(
            cmd, cwd=work, env=_env(), capture_output=True, text=True, timeout=time_limit
        )
        capped = False
        if r.returncode != 0:
            print(r.stdout[-2000:], r.stderr[-2000:])
    except subprocess.TimeoutExpired:
        capped = True
    res = _matching(_results(work), patterns)
    counts = {}
    for status in res.values():
        counts[status] = counts.get(status, 0) + 1
    return {
        "work": work,
        "results": res,
        "counts": counts,
        "capped": capped,
        "seconds": time.monotonic() - t0,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("packages", nargs="*", default=list(PACKAGES), choices=list(PACKAGES))
    ap.add_argument("--max-children", type=int, default=2)
    ap.add_argument("--time-limit", type=float, default=3600.0, help="seconds per package")
    ap.add_argument("--workdir", type=Path, default=Path("/tmp/fairdesk-mutation"))
    ap.add_argument("--no-coverage", action="store_true")
    ap.add_argument(
        "--rerun-survivors",
        action="store_true",
        help="run only the survivors (and unchecked) of the previous run again "
        "(after new tests; a changed test list resets mutmut's results: run all)",
    )
    ap.add_argument(
        "--mutants",
        action="append",
        default=[],
        metavar="GLOB",
        help="only mutants whose name matches (e.g. 'fairdesk.stats.verdicts.*'); repeatable",
    )
    ap.add_argument(
        "--tests",
        action="append",
        default=[],
        metavar="PATH",
        help="run only these test files (repeatable) instead of the package's list, "
        "in a scratch folder of its own (PKG-tests): a quick check of one part, "
        "whose kills stand for the whole list's (it holds these files); a "
        "survivor here may still be killed by the whole list",
    )
    ap.add_argument(
        "--report-only",
        action="store_true",
        help="print the stored results of the last run, run nothing",
    )
    a = ap.parse_args(argv)
    ok = True
    for pkg in a.packages:
        spec = PACKAGES[pkg]
        name = pkg
        if a.tests:
            spec = {**spec, "tests": list(a.tests)}
            name = f"{pkg}-tests"
        print(
            f"== {pkg}: {' '.join(spec['mutate'])}\n   tests: {' '.join(spec['tests'])}", flush=True
        )
        if not (a.no_coverage or a.report_only):
            for f, (ln, br) in coverage(pkg, spec).items():
                print(f"   coverage {f}: lines {ln:.1f}%, branches {br:.1f}%", flush=True)
        out = mutate(
            name,
            spec,
            a.workdir,
            a.max_children,
            a.time_limit,
            a.rerun_survivors,
            a.report_only,
            a.mutants,
        )
        c = out["counts"]
        killed = c.get("killed", 0) + c.get("timeout", 0)
        survivors = sorted(n for n, s in out["results"].items() if s in ("survived", "no tests"))
        unchecked = c.get("not checked", 0)
        decided = sum(c.values()) - unchecked - c.get("skipped", 0)
        diffs = _diffs(out["work"], survivors)
        why = {n: _why_not(n, diffs.get(n, "")) for n in survivors}
        explained = [n for n in survivors if why[n]]
        score = 100.0 * killed / max(1, decided)
        score_eq = 100.0 * killed / max(1, decided - len(explained))
        print(
            f"   mutants: {sum(c.values())} ({', '.join(f'{k} {v}' for k, v in sorted(c.items()))})"
            f"{'; time limit reached' if out['capped'] else ''} in {out['seconds']:.0f} s"
        )
        print(
            f"   MUTATION SCORE {name}: {score:.1f}% killed of {decided} checked "
            f"({score_eq:.1f}% without the {len(explained)} equivalent or never activated)"
        )
        for n in survivors:
            if n in explained:
                continue
            print(f"   - {n} [{out['results'][n].upper()}]\n       {diffs.get(n, '')}", flush=True)
        reasons: dict[str, int] = {}
        for n in explained:
            reasons[why[n]] = reasons.get(why[n], 0) + 1
        for why, k in reasons.items():
            print(f"   - {k} mutant(s) [{why}]")
        ok &= score_eq >= 85.0
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
