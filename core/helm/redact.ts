/**
 * Collects secret strings (kubeconfig content and every credential under its users, repository
 * passwords, chart values, anything registered explicitly) and replaces them with `[redacted]` in
 * messages and argv. Redaction is by construction: registering a secret registers the forms it can
 * take on the way out too — each line of a multi-line value (helm's output reaches the engine line
 * by line), its JSON-escaped forms (JavaScript's and Go's, which also escapes `<`, `>` and `&`),
 * the form with only line breaks escaped (as helm's schema errors quote a value) and its base64
 * forms (standard, unpadded and URL-safe). Under a kubeconfig user every string is a
 * secret except a short allowlist of plugin settings (`exec.command`, `exec.apiVersion`, ...), and
 * the contents of the files it names (`tokenFile`, `client-key`) are read and registered as well.
 *
 * @module
 */
import { readFileSync } from "node:fs";
import { isAbsolute } from "node:path";
import { parse as parseYaml } from "yaml";

/** The text that replaces every secret. */
export const REDACTED = "[redacted]";

/** Secrets (and lines of secrets) shorter than this are not redacted: they would mangle unrelated text. */
const MIN_SECRET_LENGTH = 4;

/** The shortest value string (or line of one) `Redactor.addValues` registers. */
const MIN_VALUE_LENGTH = 6;

/**
 * Paths under a kubeconfig's `users[].user` (keys joined with `.`, array indices left out) whose
 * strings are not secret. Every other string under a user is.
 */
const KUBECONFIG_PUBLIC_PATHS = new Set([
  "exec.command",
  "exec.apiVersion",
  "exec.interactiveMode",
  "exec.provideClusterInfo",
  "exec.installHint",
  "exec.env.name",
  "auth-provider.name",
  // paths of files; the files' contents are registered instead (see KUBECONFIG_SECRET_FILES)
  "tokenFile",
  "client-key",
  "client-certificate",
]);

/** Paths under `users[].user` that name a file whose content is a secret. */
const KUBECONFIG_SECRET_FILES = new Set(["tokenFile", "client-key"]);

/** How a string is registered. */
interface Registration {
  /** Strings (and lines) shorter than this, once trimmed, are left out. */
  readonly minLength: number;
  /** Register each line of a multi-line string too. */
  readonly lines: boolean;
}

/** The JSON-escaped body (no quotes) of `s` as JavaScript writes it. */
function jsonEscaped(s: string): string {
  return JSON.stringify(s).slice(1, -1);
}

/** The JSON-escaped body of `s` as Go's encoding/json writes it (HTML-safe: `<`, `>`, `&`, U+2028/9). */
function goJsonEscaped(s: string): string {
  return jsonEscaped(s)
    .replaceAll("<", "\\u003c")
    .replaceAll(">", "\\u003e")
    .replaceAll("&", "\\u0026")
    .replaceAll("\u2028", "\\u2028")
    .replaceAll("\u2029", "\\u2029");
}

/** `s` with only its line breaks and tabs escaped (`\n`, `\r`, `\t`), as helm's schema errors quote a value. */
function controlEscaped(s: string): string {
  return s.replaceAll("\r", "\\r").replaceAll("\n", "\\n").replaceAll("\t", "\\t");
}

/** The base64 forms of `s`: standard, unpadded and URL-safe (unpadded). */
function base64Forms(s: string): string[] {
  const b = Buffer.from(s, "utf8");
  const std = b.toString("base64");
  return [std, std.replace(/=+$/, ""), b.toString("base64url")];
}

/**
 * Every form of `secret` to redact, for {@link Registration} `how`: the string and its trimmed
 * form, their lines (when `how.lines`), the JSON-escaped forms of all of them, and the base64 forms
 * of the whole. Empty when the trimmed secret is shorter than `how.minLength`.
 */
function secretForms(
  secret: string,
  how: Registration = { minLength: MIN_SECRET_LENGTH, lines: true },
): string[] {
  const trimmed = secret.trim();
  if (trimmed.length < how.minLength) return [];
  const plain = new Set([secret, trimmed]);
  if (how.lines && /[\r\n]/.test(trimmed)) {
    for (const line of trimmed.split(/\r?\n|\r/)) {
      const l = line.trim();
      if (l.length >= how.minLength) plain.add(l);
    }
  }
  const forms = new Set<string>();
  for (const p of plain) {
    forms.add(p);
    forms.add(jsonEscaped(p));
    forms.add(goJsonEscaped(p));
    forms.add(controlEscaped(p));
  }
  for (const whole of new Set([secret, trimmed])) for (const f of base64Forms(whole)) forms.add(f);
  return [...forms];
}

/** The content of the file at `path`, or `undefined` when it cannot be read or the path is not absolute. */
function readSecretFile(path: string): string | undefined {
  // helm reads the kubeconfig from a temp copy, so only an absolute path names the file helm uses.
  if (!isAbsolute(path)) return undefined;
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * A set of secrets and the means to scrub them from text.
 *
 * Longer secrets are replaced first, so a secret that contains another is scrubbed whole.
 */
export class Redactor {
  private readonly secrets = new Set<string>();
  private sorted: string[] | undefined;

  /**
   * @param secrets - initial secrets (see {@link Redactor.add}); empty and very short strings are ignored
   * @default secrets - none
   */
  public constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  /**
   * Registers a secret in all its forms (see `secretForms`): each line of at least four
   * characters of a multi-line secret, the JSON-escaped and the base64 forms.
   */
  public add(secret: string | undefined): this {
    if (secret !== undefined) this.register(secretForms(secret));
    return this;
  }

  /**
   * Registers a kubeconfig's full content (whole, not line by line: its structure is not secret)
   * and every string under its users except `KUBECONFIG_PUBLIC_PATHS`: tokens, keys,
   * passwords, exec plugin `args` and `env` values, auth-provider config, and the contents of the
   * files named by `tokenFile` and `client-key` (when the path is absolute and the file readable).
   * Content that is not YAML is registered as a whole only.
   */
  public addKubeconfig(content: string | undefined): this {
    if (content === undefined) return this;
    this.register(secretForms(content, { minLength: MIN_SECRET_LENGTH, lines: false }));
    let doc: unknown;
    try {
      doc = parseYaml(content);
    } catch {
      return this;
    }
    const users = (doc as { users?: unknown } | null)?.users;
    if (!Array.isArray(users)) return this;
    const visit = (node: unknown, path: string): void => {
      if (typeof node === "string") {
        if (KUBECONFIG_SECRET_FILES.has(path)) this.add(readSecretFile(node));
        if (!KUBECONFIG_PUBLIC_PATHS.has(path)) this.add(node);
      } else if (Array.isArray(node)) {
        for (const item of node) visit(item, path);
      } else if (typeof node === "object" && node !== null) {
        for (const [k, v] of Object.entries(node)) visit(v, path === "" ? k : `${path}.${k}`);
      }
    };
    for (const u of users) visit((u as { user?: unknown } | null)?.user, "");
    return this;
  }

  /**
   * Registers the string leaves of chart values (helm can echo a value, e.g. in a schema error), in
   * all their forms (see `secretForms`). Strings and lines shorter than six characters are
   * left out: redacting "a" or "true" everywhere would make every message unreadable.
   */
  public addValues(values: unknown): this {
    if (typeof values === "string") {
      this.register(secretForms(values, { minLength: MIN_VALUE_LENGTH, lines: true }));
    } else if (Array.isArray(values)) {
      for (const v of values) this.addValues(v);
    } else if (values !== null && typeof values === "object") {
      for (const v of Object.values(values)) this.addValues(v);
    }
    return this;
  }

  /** Registers every secret of another redactor. */
  public addAll(other: Redactor): this {
    this.register(other.secrets);
    return this;
  }

  /** The number of registered strings (every form of every secret counts). */
  public get size(): number {
    return this.secrets.size;
  }

  /** `text` with every registered secret replaced by {@link REDACTED}. */
  public redact(text: string): string {
    if (this.secrets.size === 0 || text.length === 0) return text;
    this.sorted ??= [...this.secrets].sort((a, b) => b.length - a.length);
    let out = text;
    for (const s of this.sorted) {
      if (out.includes(s)) out = out.split(s).join(REDACTED);
    }
    return out;
  }

  /** A copy of `argv` with every registered secret replaced by {@link REDACTED}. */
  public redactArgv(argv: readonly string[]): string[] {
    return argv.map((a) => this.redact(a));
  }

  private register(forms: Iterable<string>): void {
    for (const f of forms) {
      if (f.length === 0 || this.secrets.has(f)) continue;
      this.secrets.add(f);
      this.sorted = undefined;
    }
  }
}
