/**
 * helm's stderr classified into transient, permanent and state failures: the table of known
 * messages, beside the runner that hands it helm's stderr (`failure.ts`). The retry loop retries
 * only what this table calls transient.
 *
 * @module
 */
import type { HelmFailureClass, HelmFailureKind } from "../errors.js";

interface Rule {
  readonly kind: HelmFailureKind;
  readonly reason: string;
  readonly re: RegExp;
}

/**
 * The classification table, checked in order; the first match wins. State rules come first
 * (they are the most specific), then permanent rules whose text could also contain transient
 * words (schema and template errors), then transient rules, then the remaining permanent ones.
 */
const RULES: readonly Rule[] = [
  // --- state ---
  // helm v4 says "cannot reuse a name", helm v3 "cannot re-use a name"
  { kind: "state", reason: "release name in use", re: /cannot re-?use a name that is still in use/i },
  {
    kind: "state",
    reason: "another operation in progress",
    re: /another operation \(install\/upgrade\/rollback\) is in progress/i,
  },
  { kind: "state", reason: "release has no deployed revision", re: /has no deployed releases/i },
  // --- permanent, specific ---
  {
    kind: "permanent",
    reason: "values do not meet the chart's schema",
    re: /values don't meet the specifications of the schema/i,
  },
  { kind: "permanent", reason: "template error", re: /\bparse error\b|\bexecution error\b|\btemplate: /i },
  { kind: "permanent", reason: "invalid release name", re: /invalid release name/i },
  { kind: "permanent", reason: "invalid ownership metadata", re: /invalid ownership metadata/i },
  {
    kind: "permanent",
    reason: "admission webhook denied the request",
    re: /admission webhook .* denied the request/i,
  },
  {
    kind: "permanent",
    reason: "kubeconfig invalid",
    re: /invalid configuration|no context|error loading config file|kubernetes cluster unreachable: .*(?:no configuration|is empty)/i,
  },
  // --- transient ---
  {
    kind: "transient",
    reason: "CRD not established yet",
    re: /no matches for kind|ensure CRDs are installed first|resource mapping not found/i,
  },
  {
    kind: "transient",
    reason: "webhook not reachable",
    re: /failed calling webhook|no endpoints available for service/i,
  },
  {
    kind: "transient",
    reason: "API server or repository unreachable",
    re: /connection refused|no route to host|i\/o timeout|TLS handshake timeout|connection reset by peer|network is unreachable|\bEOF\b|dial tcp/i,
  },
  {
    kind: "transient",
    reason: "server error (5xx)",
    re: /the server is currently unable to handle the request|etcdserver: request timed out|etcdserver: leader changed|Internal error occurred|\b50[0234] (?:Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)\b|the server was unable to return a response|too many requests|\b429\b/i,
  },
  {
    kind: "transient",
    reason: "timed out waiting",
    re: /context deadline exceeded|timed out waiting for the condition/i,
  },
  {
    // helm v4's watcher lost the API server while waiting: it cannot tell the resources' status.
    kind: "transient",
    reason: "lost the API server while waiting",
    re: /not ready\. status: Unknown/,
  },
  {
    kind: "transient",
    reason: "namespace is being terminated",
    re: /because it is being terminated/i,
  },
  // --- permanent ---
  {
    kind: "permanent",
    reason: "credentials rejected (401/403)",
    re: /\b401\b|\b403\b|Unauthorized|forbidden|authentication required|basic credential not found/i,
  },
  {
    kind: "permanent",
    reason: "chart or version not found",
    re: /chart "[^"]*"(?: version "[^"]*")? not found|no chart version found|no chart name found|\b404 Not Found\b|: not found\s*$|repo .* not found|path "[^"]*" not found|not a valid chart repository/im,
  },
];

/**
 * Classifies a failed helm run by its stderr. Pure function over a table of regular expressions.
 *
 * Unknown stderr is classified `permanent` on purpose: a retry loop must only spin on failures
 * known to heal with time (an API server that is still starting, a CRD that is not established
 * yet, a webhook without endpoints). Looping for 15 minutes on an error nobody anticipated hides
 * it; failing fast shows helm's own message to the user at once.
 *
 * @param stderr - helm's stderr (redacted or not; only matched, never returned)
 */
export function classifyHelmFailure(stderr: string): HelmFailureClass {
  for (const rule of RULES) {
    if (rule.re.test(stderr)) return { kind: rule.kind, reason: rule.reason };
  }
  return { kind: "permanent", reason: "unrecognized helm error" };
}
