/**
 * An RFC 4180 CSV parser: comma-separated fields, fields in double quotes may hold commas, line
 * breaks and doubled quotes (""), records end with CRLF or LF (a lone CR is kept as data). A
 * leading UTF-8 BOM is skipped. Malformed input is reported with line and column:
 * an unterminated quoted field is fatal; a quote inside an unquoted field or text after a closing
 * quote is kept literally and reported as a warning (a common real-world deviation).
 */
import { ImportError, type ImportWarning } from './errors';

/** One record: its fields and the 1-based line where it starts. */
interface CsvRecord {
  fields: string[];
  line: number;
}

/** Parses CSV text. Throws ImportError (naming `origin`, line and column) on an unterminated quote. */
export function parseCsv(text: string, origin: string): { records: CsvRecord[]; warnings: ImportWarning[] } {
  const records: CsvRecord[] = [];
  const warnings: ImportWarning[] = [];
  const n = text.length;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  let line = 1;
  let lineStart = i;
  let fields: string[] = [];
  let recordLine = 1;
  let atRecordStart = true;

  const col = (at: number): number => at - lineStart + 1;

  while (i < n) {
    if (atRecordStart) {
      recordLine = line;
      fields = [];
      atRecordStart = false;
    }
    // One field starting at i.
    let value = '';
    if (text[i] === '"') {
      const qLine = line;
      const qCol = col(i);
      i++;
      let closed = false;
      while (i < n) {
        const q = text.indexOf('"', i);
        const chunkEnd = q === -1 ? n : q;
        // Track line numbers through the chunk.
        for (let k = i; k < chunkEnd; k++) {
          if (text.charCodeAt(k) === 0x0a) {
            line++;
            lineStart = k + 1;
          }
        }
        value += text.slice(i, chunkEnd);
        if (q === -1) {
          i = n;
          break;
        }
        if (text[q + 1] === '"') {
          value += '"';
          i = q + 2;
          continue;
        }
        i = q + 1;
        closed = true;
        break;
      }
      if (!closed)
        throw new ImportError(origin, 'unterminated quoted field (a field opened with " never closes)', {
          line: qLine,
          column: qCol,
        });
      // After the closing quote only a separator, a line break or the end may follow.
      if (i < n && text[i] !== ',' && text[i] !== '\n' && !(text[i] === '\r' && text[i + 1] === '\n')) {
        const stray = i;
        let j = i;
        while (j < n && text[j] !== ',' && text[j] !== '\n' && !(text[j] === '\r' && text[j + 1] === '\n')) j++;
        warnings.push({ line, message: `column ${col(stray)}: text after a closing quote; kept as part of the field` });
        value += text.slice(i, j);
        i = j;
      }
    } else {
      let j = i;
      while (j < n) {
        const c = text.charCodeAt(j);
        if (c === 0x2c || c === 0x0a || (c === 0x0d && text.charCodeAt(j + 1) === 0x0a)) break;
        j++;
      }
      value = text.slice(i, j);
      const q = value.indexOf('"');
      if (q !== -1)
        warnings.push({ line, message: `column ${col(i + q)}: a quote inside an unquoted field; kept literally` });
      i = j;
    }
    fields.push(value);
    // Separator or record end.
    if (i >= n) break;
    if (text[i] === ',') {
      i++;
      if (i >= n) fields.push(''); // trailing comma at end of input: one more empty field
      continue;
    }
    // Line break ends the record.
    i += text[i] === '\r' ? 2 : 1;
    line++;
    lineStart = i;
    records.push({ fields, line: recordLine });
    atRecordStart = true;
  }
  if (!atRecordStart) records.push({ fields, line: recordLine });
  return { records, warnings };
}
