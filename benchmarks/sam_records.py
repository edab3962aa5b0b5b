"""sam_records.py — the primary records of a SAM file, for the benchmarks' judges
(optimum_compare.py, seeded_eval.py, mapq_moves.py)."""
import gzip


def open_text(path):
    """The text file at path, gunzipped on the fly when its name ends in .gz."""
    return gzip.open(path, "rt") if path.endswith(".gz") else open(path)


def primaries(path):
    """Yields (fields, flag) for every primary record of the SAM file at path (plain or gzip):
    the record's tab-separated columns and its FLAG, skipping the header and the secondary
    (0x100) and supplementary (0x800) records."""
    with open_text(path) as f:
        for line in f:
            if line.startswith("@"):
                continue
            t = line.rstrip("\n").split("\t")
            flag = int(t[1])
            if not flag & 0x900:
                yield t, flag
