package dev.glueball.spark;

import java.io.IOException;
import java.io.Serializable;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import org.apache.spark.api.java.function.FlatMapFunction;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.catalyst.InternalRow;
import org.apache.spark.unsafe.Platform;
import org.apache.spark.unsafe.types.UTF8String;

/**
 * The kinds of values in raw CSV columns and JSON lines, in one pass over the data.
 *
 * <p>Glue types a raw value by itself: a CSV text is a long, a double or a string; a JSON value has
 * the kind its token has. Typing a column needs the kinds its values hold, which Spark SQL can only
 * tell with expressions evaluated per value (regular expressions and casts: several times the cost
 * of reading the data). This scanner tells them straight from each value's UTF-8 bytes and ORs them
 * per column (CSV) or per top-level key (JSON lines), one bit per kind; a CSV column that holds every
 * kind is not looked at again.
 */
public final class RawKinds {
  /** CSV kinds: the value reads as a long, as a double (and not a long), or as neither. */
  public static final int CSV_LONG = 1, CSV_DOUBLE = 2, CSV_STRING = 4;

  /** JSON kinds of a key's values. */
  public static final int LONG = 1, DOUBLE = 2, STRING = 4, BOOLEAN = 8, WIDE_NUMBER = 16, OBJECT = 32,
      ARRAY = 64, NULL = 128;

  /** JSON line flags: a line holds an array, a scalar, is malformed, or a record repeats a key. */
  public static final int ARRAY_LINE = 1, SCALAR_LINE = 2, MALFORMED_LINE = 4, DUPLICATE_KEY = 8;

  /** A flag of {@link #jsonShapes}: a number somewhere whose eager kind the scan does not settle. */
  public static final int UNSETTLED_NUMBER = 16;

  /** A bit of {@link #jsonShapes} kinds: a fraction whose double is to be taken from its decimal. */
  public static final int BY_DECIMAL = 256;

  private static final int CSV_ALL = CSV_LONG | CSV_DOUBLE | CSV_STRING;
  private static final int LINEAR_DUPLICATE_CHECK = 32;

  private RawKinds() {
  }

  /**
   * The kinds of every column of {@code frame} (all string columns), comma-separated in column order.
   *
   * <p>A value is a long when it matches {@code ^\s*[+-]?[0-9]+\s*$} and fits a long, a double when it
   * matches {@code ^\s*[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?\s*$} and is no long, else a
   * string; {@code \s} is ASCII white space as in Java's regular expressions. Nulls have no kind.
   */
  public static String csv(Dataset<Row> frame) {
    final int width = frame.schema().size();
    int[] bits = frame.queryExecution().toRdd().toJavaRDD().mapPartitions(
        (FlatMapFunction<Iterator<InternalRow>, int[]>) rows -> {
          int[] seen = new int[width];
          int open = width;  // columns that have not shown every kind yet
          while (open > 0 && rows.hasNext()) {
            InternalRow row = rows.next();
            for (int c = 0; c < width; c++) {
              if (seen[c] == CSV_ALL || row.isNullAt(c)) {
                continue;
              }
              seen[c] |= csvKind(row.getUTF8String(c));
              if (seen[c] == CSV_ALL) {
                open--;
              }
            }
          }
          return Collections.singletonList(seen).iterator();
        }).fold(new int[width], RawKinds::or);
    StringBuilder out = new StringBuilder();
    for (int c = 0; c < width; c++) {
      out.append(c == 0 ? "" : ",").append(bits[c]);
    }
    return out.toString();
  }

  private static int[] or(int[] left, int[] right) {
    int[] out = new int[left.length];
    for (int i = 0; i < left.length; i++) {
      out[i] = left[i] | right[i];
    }
    return out;
  }

  private static boolean space(int b) {
    return b == ' ' || (b >= '\t' && b <= '\r');  // \t \n \u000b \f \r
  }

  private static boolean digit(int b) {
    return b >= '0' && b <= '9';
  }

  /** The CSV kind of one value (see {@link #csv}). */
  public static int csvKind(String value) {
    return csvKind(UTF8String.fromString(value));
  }

  static int csvKind(UTF8String text) {
    Object base = text.getBaseObject();
    long at = text.getBaseOffset();
    int start = 0;
    int end = text.numBytes();
    while (start < end && space(Platform.getByte(base, at + start))) {
      start++;
    }
    while (end > start && space(Platform.getByte(base, at + end - 1))) {
      end--;
    }
    if (start == end) {
      return CSV_STRING;
    }
    int i = start;
    int b = Platform.getByte(base, at + i);
    boolean negative = b == '-';
    if (negative || b == '+') {
      i++;
    }
    int digitsFrom = i;
    long value = 0;  // accumulated negatively, so that Long.MIN_VALUE fits
    boolean overflow = false;
    while (i < end && digit(b = Platform.getByte(base, at + i))) {
      int d = b - '0';
      if (value < (Long.MIN_VALUE + d) / 10) {
        overflow = true;
      } else {
        value = value * 10 - d;
      }
      i++;
    }
    int integerDigits = i - digitsFrom;
    if (i == end && integerDigits > 0) {
      boolean fits = !overflow && (negative || value != Long.MIN_VALUE);
      return fits ? CSV_LONG : CSV_DOUBLE;
    }
    int fractionDigits = 0;
    if (i < end && Platform.getByte(base, at + i) == '.') {
      i++;
      while (i < end && digit(Platform.getByte(base, at + i))) {
        i++;
        fractionDigits++;
      }
    }
    if (integerDigits == 0 && fractionDigits == 0) {
      return CSV_STRING;
    }
    if (i < end) {
      b = Platform.getByte(base, at + i);
      if (b != 'e' && b != 'E') {
        return CSV_STRING;
      }
      i++;
      if (i < end && ((b = Platform.getByte(base, at + i)) == '+' || b == '-')) {
        i++;
      }
      int exponentDigits = 0;
      while (i < end && digit(Platform.getByte(base, at + i))) {
        i++;
        exponentDigits++;
      }
      if (exponentDigits == 0 || i != end) {
        return CSV_STRING;
      }
    }
    return CSV_DOUBLE;
  }

  /**
   * The top-level keys of the JSON lines in the first column of {@code lines} and the kinds of their
   * values, as a JSON object: {@code {"flags": n, "keys": {"key": kinds, ...}}} (keys in the order first
   * seen). Lines are parsed as Spark's JSON reader parses them with Jackson's strict defaults; blank
   * lines are skipped; a top-level array, a scalar, a malformed line or a repeated key sets its flag
   * (the keys seen before a line turned out malformed are kept).
   *
   * <p>A number's kind is what Spark's variant parser makes of it, as the eager typing reads it: an
   * integer within the long range is a long; a fraction is a double, unless its text is long enough
   * (20 characters) to be read as a wide decimal or it is a negative zero in decimal form (a decimal
   * has no negative zero): those, like integers beyond the long range, are wide numbers, whose values
   * are converted one by one.
   */
  public static String json(Dataset<Row> lines) {
    Found found = lines.queryExecution().toRdd().toJavaRDD().mapPartitions(
        (FlatMapFunction<Iterator<InternalRow>, Found>) rows -> {
          JsonFactory factory = new JsonFactory();
          Found seen = new Found();
          LinkedHashMap<String, Integer> kinds = seen.kinds;
          ArrayList<String> names = new ArrayList<>();
          HashSet<String> many = new HashSet<>();
          while (rows.hasNext()) {
            InternalRow row = rows.next();
            if (row.isNullAt(0)) {
              continue;
            }
            UTF8String line = row.getUTF8String(0);
            try (JsonParser parser = parserOf(factory, line)) {
              JsonToken token = parser.nextToken();
              if (token == null) {
                continue;
              }
              if (token == JsonToken.START_ARRAY) {
                seen.flags |= ARRAY_LINE;
                continue;
              }
              if (token != JsonToken.START_OBJECT) {
                seen.flags |= SCALAR_LINE;
                continue;
              }
              names.clear();
              many.clear();
              while (parser.nextToken() == JsonToken.FIELD_NAME) {
                String name = parser.currentName();
                if (repeated(name, names, many)) {
                  seen.flags |= DUPLICATE_KEY;
                }
                int kind = valueKind(parser, parser.nextToken());
                Integer known = kinds.get(name);
                if (known == null || (known | kind) != known) {
                  kinds.put(name, known == null ? kind : known | kind);
                }
              }
            } catch (IOException malformed) {
              seen.flags |= MALFORMED_LINE;
            }
          }
          return Collections.singletonList(seen).iterator();
        }).fold(new Found(), Found::merge);
    return found.encode();
  }

  /** What the JSON scan found in some lines: the kinds of each key and the line flags. */
  static final class Found implements Serializable {
    private static final long serialVersionUID = 1L;
    final LinkedHashMap<String, Integer> kinds = new LinkedHashMap<>();
    int flags;

    static Found merge(Found left, Found right) {
      Found out = new Found();
      out.kinds.putAll(left.kinds);
      for (Map.Entry<String, Integer> entry : right.kinds.entrySet()) {
        out.kinds.merge(entry.getKey(), entry.getValue(), (a, b) -> a | b);
      }
      out.flags = left.flags | right.flags;
      return out;
    }

    String encode() {
      return encoded(flags, "keys", out -> {
        out.writeStartObject();
        for (Map.Entry<String, Integer> entry : kinds.entrySet()) {
          out.writeNumberField(entry.getKey(), entry.getValue());
        }
        out.writeEndObject();
      });
    }
  }

  /**
   * The shape of the JSON-lines records in the first column of {@code lines}, for typing them as the
   * eager typing does: for every place a value can be (a top-level key, a field of an object value,
   * the elements of an array value) the kinds of the values seen there, as JSON:
   * {@code {"flags": n, "root": shape}}, a shape being {@code {"k": kinds, "f": {name: shape, ...},
   * "e": shape}} ({@code "f"} once an object was seen there, {@code "e"} once an array held elements).
   *
   * <p>Only well-formed object lines count, as only they are records: what a line added before it
   * turned out malformed, or to repeat a key (at any depth: the variant parser refuses that line), is
   * taken back. Kinds are those of {@link #json}; a fraction whose double differs from the one the
   * eager typing takes from its decimal (a negative zero: a decimal has none) also has
   * {@link #BY_DECIMAL}; a number
   * whose eager kind depends on the variant parser's decimal limits (an integer beyond the long range, a
   * fraction of 20 characters or more) sets {@link #UNSETTLED_NUMBER} instead of a kind.
   */
  public static String jsonShapes(Dataset<Row> lines) {
    Shapes found = lines.queryExecution().toRdd().toJavaRDD().mapPartitions(
        (FlatMapFunction<Iterator<InternalRow>, Shapes>) rows -> {
          Shapes seen = new Shapes();
          JsonFactory factory = new JsonFactory();
          while (rows.hasNext()) {
            InternalRow row = rows.next();
            if (!row.isNullAt(0)) {
              seen.line(factory, row.getUTF8String(0));
            }
          }
          return Collections.singletonList(seen).iterator();
        }).fold(new Shapes(), Shapes::merge);
    return found.encode();
  }

  /** The kinds of the values at one place of the records, and the places below it. */
  static final class Shape implements Serializable {
    private static final long serialVersionUID = 1L;
    int kinds;
    LinkedHashMap<String, Shape> fields;
    Shape element;

    void absorb(Shape other) {
      kinds |= other.kinds;
      if (other.fields != null) {
        if (fields == null) {
          fields = new LinkedHashMap<>();
        }
        for (Map.Entry<String, Shape> entry : other.fields.entrySet()) {
          Shape mine = fields.get(entry.getKey());
          if (mine == null) {
            fields.put(entry.getKey(), entry.getValue());
          } else {
            mine.absorb(entry.getValue());
          }
        }
      }
      if (other.element != null) {
        if (element == null) {
          element = other.element;
        } else {
          element.absorb(other.element);
        }
      }
    }

    void write(JsonGenerator out) throws IOException {
      out.writeStartObject();
      out.writeNumberField("k", kinds);
      if (fields != null) {
        out.writeObjectFieldStart("f");
        for (Map.Entry<String, Shape> entry : fields.entrySet()) {
          out.writeFieldName(entry.getKey());
          entry.getValue().write(out);
        }
        out.writeEndObject();
      }
      if (element != null) {
        out.writeFieldName("e");
        element.write(out);
      }
      out.writeEndObject();
    }
  }

  /** A line that is no record: a repeated key, or malformed. */
  private static final class NotARecord extends IOException {
    private static final long serialVersionUID = 1L;

    NotARecord(String message) {
      super(message);
    }

    @Override
    public synchronized Throwable fillInStackTrace() {
      return this;  // thrown for control flow: no stack to fill
    }
  }

  /** The shape of the records of some lines, built line by line; a line that is no record is taken back. */
  static final class Shapes implements Serializable {
    private static final long serialVersionUID = 1L;
    private static final int KINDS = 0, FIELD = 1, FIELDS = 2, ELEMENT = 3;
    final Shape root = new Shape();
    int flags;
    // the current line's changes (what, shape, kinds before, field added), undone if it is no record
    private transient ArrayList<Object[]> changes;

    void line(JsonFactory factory, UTF8String text) {
      if (changes == null) {
        changes = new ArrayList<>();
      }
      changes.clear();
      try (JsonParser parser = parserOf(factory, text)) {
        JsonToken token = parser.nextToken();
        if (token == null) {
          return;
        }
        if (token == JsonToken.START_ARRAY) {
          flags |= ARRAY_LINE;
        } else if (token != JsonToken.START_OBJECT) {
          flags |= SCALAR_LINE;
        } else {
          add(root, OBJECT);
          object(parser, root);
        }
      } catch (IOException noRecord) {
        flags |= noRecord instanceof NotARecord ? DUPLICATE_KEY : MALFORMED_LINE;
        for (int i = changes.size() - 1; i >= 0; i--) {
          Object[] change = changes.get(i);
          Shape shape = (Shape) change[1];
          switch ((int) change[0]) {
            case KINDS: shape.kinds = (int) change[2]; break;
            case FIELD: shape.fields.remove((String) change[3]); break;
            case FIELDS: shape.fields = null; break;
            default: shape.element = null;
          }
        }
      }
    }

    private void object(JsonParser parser, Shape shape) throws IOException {
      if (shape.fields == null) {
        shape.fields = new LinkedHashMap<>();
        changes.add(new Object[] {FIELDS, shape, 0, null});
      }
      ArrayList<String> names = new ArrayList<>();
      HashSet<String> many = new HashSet<>();
      JsonToken token;
      while ((token = parser.nextToken()) == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        if (repeated(name, names, many)) {
          throw new NotARecord("repeated key " + name);
        }
        Shape field = shape.fields.get(name);
        if (field == null) {
          field = new Shape();
          shape.fields.put(name, field);
          changes.add(new Object[] {FIELD, shape, 0, name});
        }
        value(parser, parser.nextToken(), field);
      }
      if (token != JsonToken.END_OBJECT) {
        throw new IOException("unexpected token " + token);
      }
    }

    private void value(JsonParser parser, JsonToken token, Shape shape) throws IOException {
      if (token == null) {
        throw new IOException("unexpected end of input");
      }
      switch (token) {
        case VALUE_NUMBER_INT:
          JsonParser.NumberType type = parser.getNumberType();
          if (type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG) {
            add(shape, LONG);
          } else {
            flags |= UNSETTLED_NUMBER;
          }
          return;
        case VALUE_NUMBER_FLOAT:
          int length = parser.getTextLength();
          if (length >= 20) {
            flags |= UNSETTLED_NUMBER;
          } else {
            add(shape, negativeDecimalZero(parser) ? DOUBLE | BY_DECIMAL : DOUBLE);
          }
          return;
        case START_OBJECT:
          add(shape, OBJECT);
          object(parser, shape);
          return;
        case START_ARRAY:
          add(shape, ARRAY);
          JsonToken next;
          while ((next = parser.nextToken()) != JsonToken.END_ARRAY) {
            if (shape.element == null) {
              shape.element = new Shape();
              changes.add(new Object[] {ELEMENT, shape, 0, null});
            }
            value(parser, next, shape.element);
          }
          return;
        default:
          add(shape, valueKind(parser, token));
      }
    }

    private void add(Shape shape, int kind) {
      if ((shape.kinds | kind) != shape.kinds) {
        changes.add(new Object[] {KINDS, shape, shape.kinds, null});
        shape.kinds |= kind;
      }
    }

    static Shapes merge(Shapes left, Shapes right) {
      left.root.absorb(right.root);
      left.flags |= right.flags;
      return left;
    }

    String encode() {
      return encoded(flags, "root", root::write);
    }
  }

  /** Writes one JSON value. */
  private interface JsonWriting {
    void write(JsonGenerator out) throws IOException;
  }

  /** {@code {"flags": flags, name: (what value writes)}} as text. */
  private static String encoded(int flags, String name, JsonWriting value) {
    StringWriter text = new StringWriter();
    try (JsonGenerator out = new JsonFactory().createGenerator(text)) {
      out.writeStartObject();
      out.writeNumberField("flags", flags);
      out.writeFieldName(name);
      value.write(out);
      out.writeEndObject();
    } catch (IOException impossible) {
      throw new IllegalStateException(impossible);
    }
    return text.toString();
  }

  private static JsonParser parserOf(JsonFactory factory, UTF8String line) throws IOException {
    Object base = line.getBaseObject();
    if (base instanceof byte[] && line.getBaseOffset() >= Platform.BYTE_ARRAY_OFFSET) {
      int offset = (int) (line.getBaseOffset() - Platform.BYTE_ARRAY_OFFSET);
      return factory.createParser((byte[]) base, offset, line.numBytes());
    }
    return factory.createParser(line.getBytes());
  }

  /** A fraction such as {@code -0.0}: the variant parser reads it as a decimal, which has no negative zero. */
  private static boolean negativeDecimalZero(JsonParser parser) throws IOException {
    char[] text = parser.getTextCharacters();
    int from = parser.getTextOffset();
    int end = from + parser.getTextLength();
    if (text[from] != '-') {
      return false;
    }
    for (int i = from + 1; i < end; i++) {
      if (text[i] != '0' && text[i] != '.') {
        return false;
      }
    }
    return true;
  }

  private static boolean repeated(String name, ArrayList<String> names, HashSet<String> many) {
    if (names.size() < LINEAR_DUPLICATE_CHECK) {
      for (String other : names) {
        if (other.equals(name)) {
          return true;
        }
      }
      names.add(name);
      if (names.size() == LINEAR_DUPLICATE_CHECK) {
        many.addAll(names);
      }
      return false;
    }
    return !many.add(name);
  }

  private static int valueKind(JsonParser parser, JsonToken token) throws IOException {
    if (token == null) {
      throw new IOException("unexpected end of input");
    }
    switch (token) {
      case VALUE_STRING:
        return STRING;
      case VALUE_NUMBER_INT:
        JsonParser.NumberType type = parser.getNumberType();
        return type == JsonParser.NumberType.INT || type == JsonParser.NumberType.LONG ? LONG : WIDE_NUMBER;
      case VALUE_NUMBER_FLOAT:
        return parser.getTextLength() >= 20 || negativeDecimalZero(parser) ? WIDE_NUMBER : DOUBLE;
      case VALUE_TRUE:
      case VALUE_FALSE:
        return BOOLEAN;
      case VALUE_NULL:
        return NULL;
      case START_OBJECT:
        parser.skipChildren();
        return OBJECT;
      case START_ARRAY:
        parser.skipChildren();
        return ARRAY;
      default:
        throw new IOException("unexpected token " + token);
    }
  }
}
