/**
 * How a YAML parse error is shown in helm-handoff's errors: its kind and position only (e.g.
 * "duplicate key at line 5, column 3"), never the YAML's text. The `yaml` package quotes the
 * offending line, and some of its messages quote a token (an escape sequence, a tag, a block
 * header); the text parsed here is a values file, a kubeconfig or a rendered manifest, any of which
 * may hold a secret.
 *
 * @module
 */
import { YAMLError } from "yaml";

/** `error` (thrown or recorded by the `yaml` package) as its kind and position, without any of the parsed text. */
export function yamlErrorSummary(error: unknown): string {
  if (!(error instanceof YAMLError)) return "parse error";
  const kind = error.code.toLowerCase().replaceAll("_", " ");
  const at = error.linePos?.[0];
  return at === undefined ? kind : `${kind} at line ${at.line}, column ${at.col}`;
}
