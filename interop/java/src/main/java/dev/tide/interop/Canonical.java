// Canonical row text: one row per line, fields separated by TAB, each value in the text form
// docs/interop.md states (the same form Tide's interop tests render Tide's reads in). Formats
// Paimon's internal values to that text and parses that text back to internal values for writes.
// Stateless; thread-safe.
package dev.tide.interop;

import org.apache.paimon.data.BinaryString;
import org.apache.paimon.data.Decimal;
import org.apache.paimon.data.GenericArray;
import org.apache.paimon.data.GenericMap;
import org.apache.paimon.data.GenericRow;
import org.apache.paimon.data.InternalArray;
import org.apache.paimon.data.InternalMap;
import org.apache.paimon.data.InternalRow;
import org.apache.paimon.data.Timestamp;
import org.apache.paimon.types.ArrayType;
import org.apache.paimon.types.DataField;
import org.apache.paimon.types.DataType;
import org.apache.paimon.types.DecimalType;
import org.apache.paimon.types.LocalZonedTimestampType;
import org.apache.paimon.types.MapType;
import org.apache.paimon.types.MultisetType;
import org.apache.paimon.types.RowType;
import org.apache.paimon.types.TimestampType;

import java.math.BigDecimal;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

final class Canonical {
  static final String NULL = "\\N";

  private Canonical() {}

  /** The text of one row: its fields in order, TAB-separated; with the row kind first if asked. */
  static String formatRow(InternalRow row, RowType type, boolean withKind) {
    StringBuilder out = new StringBuilder();
    if (withKind) out.append(row.getRowKind().shortString()).append('\t');
    List<DataField> fields = type.getFields();
    for (int i = 0; i < fields.size(); i++) {
      if (i > 0) out.append('\t');
      DataType t = fields.get(i).type();
      out.append(format(InternalRow.createFieldGetter(t, i).getFieldOrNull(row), t, fields.get(i).name()));
    }
    return out.toString();
  }

  static String format(Object v, DataType type, String column) {
    if (v == null) return NULL;
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return ((Boolean) v) ? "true" : "false";
      case TINYINT:
      case SMALLINT:
      case INTEGER:
      case BIGINT:
        return v.toString();
      case FLOAT:
        return String.format("f:%08x", Float.floatToRawIntBits((Float) v));
      case DOUBLE:
        return String.format("d:%016x", Double.doubleToRawLongBits((Double) v));
      case DECIMAL: {
        DecimalType d = (DecimalType) type;
        return ((Decimal) v).toBigDecimal().setScale(d.getScale()).toPlainString();
      }
      case CHAR:
      case VARCHAR:
        return escape(v.toString());
      case BINARY:
      case VARBINARY:
        return "x:" + hex((byte[]) v);
      case DATE:
        return LocalDate.ofEpochDay((Integer) v).toString();
      case TIME_WITHOUT_TIME_ZONE: {
        int ms = (Integer) v;
        return String.format("%02d:%02d:%02d.%03d", ms / 3600000, ms / 60000 % 60, ms / 1000 % 60, ms % 1000);
      }
      case TIMESTAMP_WITHOUT_TIME_ZONE:
        return timestamp(((Timestamp) v).toLocalDateTime());
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
        return timestamp(((Timestamp) v).toLocalDateTime()) + "Z";
      case ARRAY: {
        DataType et = ((ArrayType) type).getElementType();
        InternalArray a = (InternalArray) v;
        InternalArray.ElementGetter g = InternalArray.createElementGetter(et);
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < a.size(); i++) {
          if (i > 0) b.append(',');
          b.append(format(g.getElementOrNull(a, i), et, column));
        }
        return b.append(']').toString();
      }
      case MAP:
      case MULTISET: {
        DataType kt = type instanceof MapType ? ((MapType) type).getKeyType() : ((MultisetType) type).getElementType();
        DataType vt = type instanceof MapType ? ((MapType) type).getValueType()
            : new org.apache.paimon.types.IntType(false);
        InternalMap m = (InternalMap) v;
        InternalArray.ElementGetter kg = InternalArray.createElementGetter(kt);
        InternalArray.ElementGetter vg = InternalArray.createElementGetter(vt);
        TreeMap<String, String> sorted = new TreeMap<>(Canonical::compareBytes);
        for (int i = 0; i < m.size(); i++) {
          sorted.put(format(kg.getElementOrNull(m.keyArray(), i), kt, column),
              format(vg.getElementOrNull(m.valueArray(), i), vt, column));
        }
        StringBuilder b = new StringBuilder("{");
        boolean first = true;
        for (Map.Entry<String, String> e : sorted.entrySet()) {
          if (!first) b.append(',');
          first = false;
          b.append(e.getKey()).append('=').append(e.getValue());
        }
        return b.append('}').toString();
      }
      case ROW: {
        RowType rt = (RowType) type;
        InternalRow r = (InternalRow) v;
        StringBuilder b = new StringBuilder("(");
        for (int i = 0; i < rt.getFieldCount(); i++) {
          if (i > 0) b.append(',');
          DataType ft = rt.getTypeAt(i);
          b.append(format(InternalRow.createFieldGetter(ft, i).getFieldOrNull(r), ft, column));
        }
        return b.append(')').toString();
      }
      default:
        throw new IllegalArgumentException(
            "column " + column + " has type " + type + ", which the canonical row text does not support");
    }
  }

  /** Byte order of the UTF-8 encodings (the order the canonical batch output is sorted in). */
  static int compareBytes(String a, String b) {
    byte[] x = a.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    byte[] y = b.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    return java.util.Arrays.compareUnsigned(x, y);
  }

  static String timestamp(LocalDateTime t) {
    return String.format("%s %02d:%02d:%02d.%09d", t.toLocalDate(), t.getHour(), t.getMinute(), t.getSecond(),
        t.getNano());
  }

  static String escape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '\\': b.append("\\\\"); break;
        case '\t': b.append("\\t"); break;
        case '\n': b.append("\\n"); break;
        case '\r': b.append("\\r"); break;
        default: b.append(c);
      }
    }
    return b.toString();
  }

  static String unescape(String s) {
    StringBuilder b = new StringBuilder(s.length());
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c == '\\' && i + 1 < s.length()) {
        char n = s.charAt(++i);
        switch (n) {
          case 't': b.append('\t'); break;
          case 'n': b.append('\n'); break;
          case 'r': b.append('\r'); break;
          default: b.append(n);
        }
      } else {
        b.append(c);
      }
    }
    return b.toString();
  }

  static String hex(byte[] bytes) {
    StringBuilder b = new StringBuilder(bytes.length * 2);
    for (byte x : bytes) b.append(String.format("%02x", x & 0xff));
    return b.toString();
  }

  static byte[] unhex(String s) {
    byte[] out = new byte[s.length() / 2];
    for (int i = 0; i < out.length; i++) out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
    return out;
  }

  /** Parses the canonical text of a value of `type` into Paimon's internal representation. */
  static Object parse(String text, DataType type) {
    if (text.equals(NULL)) return null;
    switch (type.getTypeRoot()) {
      case BOOLEAN:
        return Boolean.parseBoolean(text);
      case TINYINT:
        return Byte.parseByte(text);
      case SMALLINT:
        return Short.parseShort(text);
      case INTEGER:
        return Integer.parseInt(text);
      case BIGINT:
        return Long.parseLong(text);
      case FLOAT:
        return text.startsWith("f:") ? Float.intBitsToFloat(Integer.parseUnsignedInt(text.substring(2), 16))
            : Float.parseFloat(text);
      case DOUBLE:
        return text.startsWith("d:") ? Double.longBitsToDouble(Long.parseUnsignedLong(text.substring(2), 16))
            : Double.parseDouble(text);
      case DECIMAL: {
        DecimalType d = (DecimalType) type;
        return Decimal.fromBigDecimal(new BigDecimal(text), d.getPrecision(), d.getScale());
      }
      case CHAR:
      case VARCHAR:
        return BinaryString.fromString(unescape(text));
      case BINARY:
      case VARBINARY:
        return unhex(text.startsWith("x:") ? text.substring(2) : text);
      case DATE:
        return (int) LocalDate.parse(text).toEpochDay();
      case TIME_WITHOUT_TIME_ZONE:
        return (int) (LocalTime.parse(text).toNanoOfDay() / 1_000_000L);
      case TIMESTAMP_WITHOUT_TIME_ZONE:
      case TIMESTAMP_WITH_LOCAL_TIME_ZONE: {
        String t = text.endsWith("Z") ? text.substring(0, text.length() - 1) : text;
        return Timestamp.fromLocalDateTime(LocalDateTime.parse(t.replace(' ', 'T')));
      }
      case ARRAY: {
        DataType et = ((ArrayType) type).getElementType();
        List<String> parts = split(text, '[', ']');
        Object[] values = new Object[parts.size()];
        for (int i = 0; i < values.length; i++) values[i] = parse(parts.get(i), et);
        return new GenericArray(values);
      }
      case MAP: {
        MapType mt = (MapType) type;
        Map<Object, Object> m = new LinkedHashMap<>();
        for (String entry : split(text, '{', '}')) {
          int eq = topLevelIndex(entry, '=');
          m.put(parse(entry.substring(0, eq), mt.getKeyType()), parse(entry.substring(eq + 1), mt.getValueType()));
        }
        return new GenericMap(m);
      }
      case ROW: {
        RowType rt = (RowType) type;
        List<String> parts = split(text, '(', ')');
        GenericRow r = new GenericRow(rt.getFieldCount());
        for (int i = 0; i < rt.getFieldCount(); i++) r.setField(i, parse(parts.get(i), rt.getTypeAt(i)));
        return r;
      }
      default:
        throw new IllegalArgumentException("type " + type + " cannot be written from the canonical row text");
    }
  }

  // The comma-separated items inside `open`...`close`, split at depth 0.
  private static List<String> split(String text, char open, char close) {
    if (text.length() < 2 || text.charAt(0) != open || text.charAt(text.length() - 1) != close) {
      throw new IllegalArgumentException("expected " + open + "..." + close + ", got " + text);
    }
    String inner = text.substring(1, text.length() - 1);
    List<String> out = new ArrayList<>();
    if (inner.isEmpty()) return out;
    int depth = 0, start = 0;
    for (int i = 0; i < inner.length(); i++) {
      char c = inner.charAt(i);
      if (c == '\\') { i++; continue; }
      if (c == '[' || c == '{' || c == '(') depth++;
      else if (c == ']' || c == '}' || c == ')') depth--;
      else if (c == ',' && depth == 0) {
        out.add(inner.substring(start, i));
        start = i + 1;
      }
    }
    out.add(inner.substring(start));
    return out;
  }

  private static int topLevelIndex(String text, char wanted) {
    int depth = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '\\') { i++; continue; }
      if (c == '[' || c == '{' || c == '(') depth++;
      else if (c == ']' || c == '}' || c == ')') depth--;
      else if (c == wanted && depth == 0) return i;
    }
    throw new IllegalArgumentException("no '" + wanted + "' in " + text);
  }

  static boolean isTimestampType(DataType t) {
    return t instanceof TimestampType || t instanceof LocalZonedTimestampType;
  }
}
