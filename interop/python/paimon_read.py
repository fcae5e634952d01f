"""Reads a Paimon table with pypaimon and prints its rows in the canonical row text (docs/interop.md).

Usage:
    paimon_read.py read --warehouse W --table db.t [--snapshot N] [--row-kinds]

One row per line, the table's fields in order, separated by one TAB; with --row-kinds each line starts
with the row's kind (+I, -U, +U, -D) and a TAB. A batch read prints its lines sorted by byte order. A
type the canonical form does not cover (VARIANT, BLOB, VECTOR, ...) is refused with an error naming the
type and the column; pypaimon's own refusals (a merge engine or option it does not implement) end the
command with exit code 3 and pypaimon's message, so a caller can tell "cannot read" from a wrong answer.

Exit codes: 0 rows printed, 2 bad arguments, 3 pypaimon refuses to read the table, 1 any other error.
"""

import argparse
import decimal
import re
import struct
import sys

import pyarrow

from pypaimon import CatalogFactory
from pypaimon.schema.data_types import ArrayType, AtomicType, MapType, RowType

ROW_KIND_COLUMN = "_row_kind"


class Refused(Exception):
    """The table or one of its types cannot be read or rendered; the message says which."""


def escape_text(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


def days_to_date(days):
    # Proleptic Gregorian civil date from days since 1970-01-01 (Howard Hinnant's algorithm): exact for
    # every int32, where datetime.date stops at year 1 and 9999.
    z = days + 719468
    era = (z if z >= 0 else z - 146096) // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    if m <= 2:
        y += 1
    return "%04d-%02d-%02d" % (y, m, d) if y >= 0 else "-%04d-%02d-%02d" % (-y, m, d)


def nanos_to_timestamp(nanos):
    days, rest = divmod(nanos, 86_400_000_000_000)
    secs, frac = divmod(rest, 1_000_000_000)
    return "%s %02d:%02d:%02d.%09d" % (days_to_date(days), secs // 3600, secs // 60 % 60, secs % 60, frac)


_UNIT_NANOS = {"s": 1_000_000_000, "ms": 1_000_000, "us": 1_000, "ns": 1}


def type_name(t):
    return str(t).replace(" NOT NULL", "").strip()


def render_array(arr, ptype, column):
    """Renders every value of one Arrow array (a column or a nested child) as canonical text."""
    if isinstance(arr, pyarrow.ChunkedArray):
        arr = arr.combine_chunks() if arr.num_chunks != 1 else arr.chunk(0)
    n = len(arr)
    valid = arr.is_valid().to_pylist() if n else []

    def with_nulls(texts):
        return [t if ok else "\\N" for t, ok in zip(texts, valid)]

    if isinstance(ptype, ArrayType):
        offsets = arr.offsets.to_pylist()
        elems = render_array(arr.values, ptype.element, column)
        base = offsets[0] if offsets else 0
        out = []
        for i in range(n):
            out.append("[" + ",".join(elems[offsets[i] - base:offsets[i + 1] - base]) + "]")
        return with_nulls(out)
    if isinstance(ptype, MapType):
        offsets = arr.offsets.to_pylist()
        keys = render_array(arr.keys, ptype.key, column)
        items = render_array(arr.items, ptype.value, column)
        base = offsets[0] if offsets else 0
        out = []
        for i in range(n):
            lo, hi = offsets[i] - base, offsets[i + 1] - base
            entries = sorted(zip(keys[lo:hi], items[lo:hi]), key=lambda kv: kv[0].encode("utf-8"))
            out.append("{" + ",".join(k + "=" + v for k, v in entries) + "}")
        return with_nulls(out)
    if isinstance(ptype, RowType):
        children = [render_array(arr.field(i), f.type, column) for i, f in enumerate(ptype.fields)]
        out = ["(" + ",".join(c[i] for c in children) + ")" for i in range(n)]
        return with_nulls(out)
    if not isinstance(ptype, AtomicType):
        raise Refused("column %s: type %s has no canonical text form" % (column, type_name(ptype)))

    name = type_name(ptype).upper()
    if name == "BOOLEAN":
        return with_nulls(["true" if v else "false" for v in arr.fill_null(False).to_pylist()])
    if name in ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT"):
        return with_nulls([str(v) for v in arr.fill_null(0).to_pylist()])
    if name == "FLOAT":
        return with_nulls(["f:%08x" % struct.unpack("<I", struct.pack("<f", v))[0]
                           for v in arr.fill_null(0).to_pylist()])
    if name == "DOUBLE":
        return with_nulls(["d:%016x" % struct.unpack("<Q", struct.pack("<d", v))[0]
                           for v in arr.fill_null(0).to_pylist()])
    if name.startswith("DECIMAL"):
        scale = arr.type.scale
        quantum = decimal.Decimal(1).scaleb(-scale)
        out = []
        for v in arr.to_pylist():
            out.append("" if v is None else format(v.quantize(quantum), "f"))
        return with_nulls(out)
    if name == "STRING" or name.startswith("CHAR") or name.startswith("VARCHAR"):
        return with_nulls([escape_text(v) for v in arr.fill_null("").to_pylist()])
    if name == "BYTES" or name.startswith("BINARY") or name.startswith("VARBINARY"):
        return with_nulls(["x:" + v.hex() for v in arr.fill_null(b"").to_pylist()])
    if name == "DATE":
        days = arr.cast(pyarrow.int32()).fill_null(0).to_pylist()
        return with_nulls([days_to_date(d) for d in days])
    if name.startswith("TIMESTAMP"):
        ltz = name.startswith("TIMESTAMP_LTZ") or "WITH LOCAL TIME ZONE" in name
        unit = _UNIT_NANOS[arr.type.unit]
        raw = arr.cast(pyarrow.int64()).fill_null(0).to_pylist()
        return with_nulls([nanos_to_timestamp(v * unit) + ("Z" if ltz else "") for v in raw])
    if name.startswith("TIME"):
        unit_ms = {"s": 1000, "ms": 1}.get(arr.type.unit)
        if unit_ms is not None:
            millis = [v * unit_ms for v in arr.cast(pyarrow.int32()).fill_null(0).to_pylist()]
        else:  # time64 in us or ns
            per_ms = 1000 if arr.type.unit == "us" else 1_000_000
            millis = [v // per_ms for v in arr.cast(pyarrow.int64()).fill_null(0).to_pylist()]
        return with_nulls(["%02d:%02d:%02d.%03d" % (m // 3_600_000, m // 60_000 % 60, m // 1000 % 60, m % 1000)
                           for m in millis])
    raise Refused("column %s: type %s has no canonical text form" % (column, type_name(ptype)))


def read_table(warehouse, table_name, snapshot, row_kinds):
    catalog = CatalogFactory.create({"warehouse": warehouse})
    table = catalog.get_table(table_name)
    if snapshot is not None:
        table = table.copy({"scan.snapshot-id": str(snapshot)})
    fields = table.fields
    builder = table.new_read_builder()
    splits = builder.new_scan().plan().splits()
    read = builder.new_read()
    if row_kinds:
        read.include_row_kind = True
    result = read.to_arrow(splits)
    if result is None:
        return []
    columns = []
    for f in fields:
        columns.append(render_array(result.column(f.name), f.type, f.name))
    kinds = None
    if row_kinds:
        kinds = (result.column(ROW_KIND_COLUMN).to_pylist() if ROW_KIND_COLUMN in result.schema.names
                 else ["+I"] * result.num_rows)
    lines = []
    for i in range(result.num_rows):
        cells = [c[i] for c in columns]
        if kinds is not None:
            cells.insert(0, kinds[i])
        lines.append("\t".join(cells))
    lines.sort(key=lambda s: s.encode("utf-8"))
    return lines


_REFUSAL = re.compile(r"not (yet )?supported|unsupported|does not support|not implemented", re.IGNORECASE)


def main(argv):
    parser = argparse.ArgumentParser(prog="paimon_read.py", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rd = sub.add_parser("read", help="print a table's rows in the canonical row text")
    rd.add_argument("--warehouse", required=True, help="the warehouse folder")
    rd.add_argument("--table", required=True, help="db.table")
    rd.add_argument("--snapshot", type=int, help="read this snapshot instead of the latest")
    rd.add_argument("--row-kinds", action="store_true", help="start each line with the row kind")
    args = parser.parse_args(argv)
    try:
        lines = read_table(args.warehouse, args.table, args.snapshot, args.row_kinds)
    except Refused as e:
        print("paimon_read: %s: %s" % (args.table, e), file=sys.stderr)
        return 3
    except NotImplementedError as e:
        print("paimon_read: %s: pypaimon cannot read this table: %s" % (args.table, e), file=sys.stderr)
        return 3
    except Exception as e:  # pypaimon raises plain exceptions for features it lacks, too
        kind = type(e).__name__
        if _REFUSAL.search(str(e)):
            print("paimon_read: %s: pypaimon cannot read this table: %s: %s" % (args.table, kind, e), file=sys.stderr)
            return 3
        print("paimon_read: %s: %s: %s" % (args.table, kind, e), file=sys.stderr)
        return 1
    out = sys.stdout.buffer
    for line in lines:
        out.write(line.encode("utf-8"))
        out.write(b"\n")
    out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
