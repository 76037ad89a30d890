/**
 * The building blocks of the configuration schema: typed fields grouped in sections, arrays of
 * tables (`[[storage.providers]]`) and engine lists (`[[region_engine]]`). Each component's schema
 * (options.ts) is built from these, and its TypeScript type is inferred from it, so that the
 * defaults, the documentation, the parsers and the types cannot drift apart.
 */

/** Where a configuration value came from; named in every error about it. */
export type Source =
  | { readonly kind: 'default' }
  | { readonly kind: 'env'; readonly name: string }
  | { readonly kind: 'file'; readonly path: string; readonly line: number }
  | { readonly kind: 'flag'; readonly flag: string };

export const DEFAULT_SOURCE: Source = Object.freeze({ kind: 'default' });

export function describeSource(s: Source): string {
  switch (s.kind) {
    case 'default':
      return 'default';
    case 'env':
      return `environment variable ${s.name}`;
    case 'file':
      return `config file ${s.path}, line ${s.line}`;
    case 'flag':
      return `command-line option ${s.flag}`;
  }
}

/** Facts about the machine that computed defaults depend on. */
export interface SystemInfo {
  readonly totalMemory: number;
  readonly cpus: number;
}

/** What a computed default can see: the machine, and every option resolved before it. */
export interface ResolveContext {
  readonly system: SystemInfo;
  /** The configuration built so far, in schema order (earlier sections are complete). */
  readonly root: Record<string, any>;
  /** The section being built (its earlier fields are resolved), e.g. one storage provider. */
  readonly parent: Record<string, any>;
}

/** Thrown by a computed default that cannot be computed: the option must be set. */
export class MissingOption extends Error {}

/** How a raw value reached a parser. */
export interface RawInfo {
  /** An environment variable or a flag: always text, to be read as the field's type. */
  readonly textual: boolean;
  /** The TOML kind of a file value: `string`, `integer`, `float`, `boolean`, `array`, a date kind. */
  readonly tomlKind?: string;
}

/** A value in the form TOML writes it. */
export type TomlOut = string | number | boolean | TomlOut[] | { [key: string]: TomlOut };

export interface Field<T> {
  readonly node: 'field';
  /** Human name of the type, e.g. `duration`, used in messages and the example files. */
  readonly typeName: string;
  readonly doc: string;
  readonly default?: T;
  readonly computed?: { readonly doc: string; resolve(ctx: ResolveContext): T };
  /** The option may stay unset (no default and no computed value). */
  readonly optional: boolean;
  /** Spellings accepted besides the key, e.g. the spec's `mysql.add` for `mysql.addr`. */
  readonly aliases: readonly string[];
  /**
   * For a field whose entries are keyed by the user (`remote_write.headers`): parses one entry's
   * value. Entries are set one by one (`headers.Authorization`), so each carries its own source.
   */
  readonly parseEntry?: (raw: unknown, info: RawInfo) => string;
  /** An example shown (commented) in the example files for options without a default. */
  readonly example?: string;
  /** An empty string means "unset", so the computed default applies (e.g. `logging.dir = ""`). */
  readonly emptyIsUnset: boolean;
  /** For display: masks secrets. */
  readonly mask?: (v: T) => T;
  /** Parses a raw value; throws an Error whose message names the bad value. */
  parse(raw: unknown, info: RawInfo): T;
  /** The TOML form of a value (sizes and durations written with units). */
  format(v: T): TomlOut;
}

export type Fields = Record<string, Node>;

export interface Section<F extends Fields = Fields> {
  readonly node: 'section';
  readonly doc: string;
  readonly fields: F;
}

/** `[[name]]` entries, each a section (e.g. `[[storage.providers]]`). */
export interface TableArray<S extends Section = Section> {
  readonly node: 'array';
  readonly doc: string;
  readonly item: S;
}

/**
 * `[[region_engine]]` entries, each holding one engine's section keyed by the engine name
 * (`[region_engine.mito]`). Held in code as a record keyed by engine name; every engine the
 * schema lists is present with its defaults.
 */
export interface EngineList<F extends Record<string, Section> = Record<string, Section>> {
  readonly node: 'engines';
  readonly doc: string;
  readonly engines: F;
}

export type Node = Field<any> | Section<any> | TableArray<any> | EngineList<any>;

/** The TypeScript type of the values a schema node describes. */
export type Infer<N> =
  N extends Field<infer T>
    ? T
    : N extends Section<infer F>
      ? { -readonly [K in keyof F]: Infer<F[K]> }
      : N extends TableArray<infer S>
        ? Array<Infer<S>>
        : N extends EngineList<infer E>
          ? { -readonly [K in keyof E]: Infer<E[K]> }
          : never;

export function section<F extends Fields>(doc: string, fields: F): Section<F> {
  return Object.freeze({ node: 'section', doc, fields });
}

export function tableArray<S extends Section>(doc: string, item: S): TableArray<S> {
  return Object.freeze({ node: 'array', doc, item });
}

export function engineList<E extends Record<string, Section>>(doc: string, engines: E): EngineList<E> {
  return Object.freeze({ node: 'engines', doc, engines });
}

export interface FieldOpts<T> {
  readonly doc: string;
  readonly default?: T;
  readonly computed?: { readonly doc: string; resolve(ctx: ResolveContext): T };
  readonly aliases?: readonly string[];
  readonly example?: string;
  readonly mask?: (v: T) => T;
  readonly emptyIsUnset?: boolean;
}

/** Makes a field from its type's parser and formatter. */
export function makeField<T>(
  typeName: string,
  parse: (raw: unknown, info: RawInfo) => T,
  format: (v: T) => TomlOut,
  opts: FieldOpts<T>,
  extra: { optional?: boolean; parseEntry?: (raw: unknown, info: RawInfo) => string } = {},
): Field<T> {
  return Object.freeze({
    node: 'field' as const,
    typeName,
    doc: opts.doc,
    default: opts.default,
    computed: opts.computed,
    optional: extra.optional ?? false,
    aliases: opts.aliases ?? [],
    parseEntry: extra.parseEntry,
    example: opts.example,
    emptyIsUnset: opts.emptyIsUnset ?? false,
    mask: opts.mask,
    parse,
    format,
  });
}

/**
 * The same field, allowed to stay unset; `computed` may give it a value that depends on other
 * options (e.g. a cache path only for object storage).
 */
export function optional<T>(
  f: Field<T>,
  computed?: { readonly doc: string; resolve(ctx: ResolveContext): T | undefined },
): Field<T | undefined> {
  return Object.freeze({ ...f, optional: true, computed: computed ?? f.computed }) as Field<T | undefined>;
}
