/**
 * Collects secret strings (kubeconfig content and its credentials, repository passwords, anything
 * registered explicitly) and replaces them with `[redacted]` in messages and argv.
 *
 * @module
 */
import { parse as parseYaml } from "yaml";

/** The text that replaces every secret. */
export const REDACTED = "[redacted]";

/** Secrets shorter than this are not redacted on their own (they would mangle unrelated text). */
const MIN_SECRET_LENGTH = 4;

/** Keys under a kubeconfig's `users[].user` whose string values are credentials. */
const KUBECONFIG_SECRET_KEYS = new Set([
  "token",
  "password",
  "client-key-data",
  "client-certificate-data",
  "id-token",
  "refresh-token",
  "access-token",
  "client-secret",
]);

/** The shortest value string `Redactor.addValues` registers. */
const MIN_VALUE_LENGTH = 6;

/**
 * A set of secrets and the means to scrub them from text.
 *
 * Longer secrets are replaced first, so a secret that contains another is scrubbed whole.
 */
export class Redactor {
  private readonly secrets = new Set<string>();

  /**
   * @param secrets - initial secrets; empty and very short strings are ignored
   * @default secrets - none
   */
  public constructor(secrets: Iterable<string | undefined> = []) {
    for (const s of secrets) this.add(s);
  }

  /**
   * Registers a secret. Multi-line secrets also register each of their non-trivial lines, so a
   * single line quoted in an error message is scrubbed too.
   */
  public add(secret: string | undefined): this {
    if (secret === undefined) return this;
    const trimmed = secret.trim();
    if (trimmed.length < MIN_SECRET_LENGTH) return this;
    this.secrets.add(secret);
    if (trimmed !== secret) this.secrets.add(trimmed);
    if (trimmed.includes("\n")) {
      for (const line of trimmed.split("\n")) {
        const l = line.trim();
        // structural lines like "apiVersion: v1" are not secret on their own; long ones may be
        if (l.length >= 24) this.secrets.add(l);
      }
    }
    return this;
  }

  /**
   * Registers a kubeconfig's full content and every credential inside it (tokens, client keys,
   * passwords). Content that is not YAML is registered as a whole only.
   */
  public addKubeconfig(content: string | undefined): this {
    if (content === undefined) return this;
    this.add(content);
    let doc: unknown;
    try {
      doc = parseYaml(content);
    } catch {
      return this;
    }
    const users = (doc as { users?: unknown } | null)?.users;
    if (!Array.isArray(users)) return this;
    const visit = (node: unknown, key: string | undefined): void => {
      if (typeof node === "string") {
        if (key !== undefined && KUBECONFIG_SECRET_KEYS.has(key)) this.add(node);
      } else if (Array.isArray(node)) {
        for (const item of node) visit(item, key);
      } else if (typeof node === "object" && node !== null) {
        for (const [k, v] of Object.entries(node)) visit(v, k);
      }
    };
    for (const u of users) visit((u as { user?: unknown } | null)?.user, undefined);
    return this;
  }

  /**
   * Registers the string leaves of chart values (helm can echo a value, e.g. in a schema error).
   * Strings shorter than six characters are left out: redacting "a" or "true" everywhere
   * would make every message unreadable.
   */
  public addValues(values: unknown): this {
    if (typeof values === "string") {
      if (values.length >= MIN_VALUE_LENGTH) this.secrets.add(values);
    } else if (Array.isArray(values)) {
      for (const v of values) this.addValues(v);
    } else if (values !== null && typeof values === "object") {
      for (const v of Object.values(values)) this.addValues(v);
    }
    return this;
  }

  /** Registers every secret of another redactor. */
  public addAll(other: Redactor): this {
    for (const s of other.secrets) this.secrets.add(s);
    return this;
  }

  /** The number of registered secrets. */
  public get size(): number {
    return this.secrets.size;
  }

  /** `text` with every registered secret replaced by {@link REDACTED}. */
  public redact(text: string): string {
    if (this.secrets.size === 0 || text.length === 0) return text;
    let out = text;
    const sorted = [...this.secrets].sort((a, b) => b.length - a.length);
    for (const s of sorted) {
      if (out.includes(s)) out = out.split(s).join(REDACTED);
    }
    return out;
  }

  /** A copy of `argv` with every registered secret replaced by {@link REDACTED}. */
  public redactArgv(argv: readonly string[]): string[] {
    return argv.map((a) => this.redact(a));
  }
}
