/**
 * The one policy for repeated conversation ids, shared by every importer (through importFileEach /
 * importText) and by `validate`: a repeated id is never merged and never dropped. Both
 * conversations are kept; the second (third, ...) is renamed `<id>#2` (`#3`, ...), skipping any
 * name already taken, and a warning names the line of the first use and of the repeat.
 * `validate` does not rewrite the file; it gives the same warning with the name an import would use.
 */
/** The shape of an importer warning (importers/errors.ts ImportWarning). */
interface IdWarning {
  line?: number;
  path?: string;
  message: string;
}

/** Where an id was first seen (1-based line; undefined when the input has no lines, e.g. a JSON path only). */
interface FirstUse {
  line?: number;
  where?: string;
  /** How many conversations used this id so far. */
  uses: number;
}

function site(line: number | undefined, where: string | undefined): string {
  if (line !== undefined) return `line ${line}`;
  if (where) return where;
  return 'an earlier dialogue';
}

/** Tracks the ids seen so far in one input. */
export class DuplicateIds {
  private readonly seen = new Map<string, FirstUse>();

  /**
   * The id to give a conversation whose id is `id`: `id` itself on first use, otherwise the next
   * free `id#N`, with a warning (pushed to `warnings`) naming both places.
   */
  claim(id: string, warnings: IdWarning[], line?: number, where?: string): string {
    const first = this.seen.get(id);
    if (!first) {
      this.seen.set(id, { line, where, uses: 1 });
      return id;
    }
    let n = first.uses + 1;
    let renamed = `${id}#${n}`;
    while (this.seen.has(renamed)) renamed = `${id}#${++n}`;
    first.uses = n;
    this.seen.set(renamed, { line, where, uses: 1 });
    warnings.push({
      line,
      path: where,
      message:
        `conversation id "${id}" is used again (first at ` +
        `${site(first.line, first.where)}${line !== undefined ? `, again at line ${line}` : ''}); both kept, this one as "${renamed}"`,
    });
    return renamed;
  }

  /** For `validate`: the message for a repeated id without renaming anything; undefined on first use. */
  check(id: string, line: number): string | undefined {
    const first = this.seen.get(id);
    if (!first) {
      this.seen.set(id, { line, uses: 1 });
      return undefined;
    }
    let n = first.uses + 1;
    let renamed = `${id}#${n}`;
    while (this.seen.has(renamed)) renamed = `${id}#${++n}`;
    first.uses = n;
    this.seen.set(renamed, { line, uses: 1 });
    return (
      `conversation id "${id}" is used again (first at ${site(first.line, undefined)}, again at line ${line}); ids ` +
      `should be unique: 'simlens convert' keeps both and renames this one "${renamed}"`
    );
  }
}
