/**
 * Per-cluster values: a {@link ClusterValue} names a field of what CAAPH v0.6.4 gives a
 * HelmChartProxy's `valuesTemplate` (the selected `Cluster`, its `ControlPlane` and its
 * `InfraCluster`, each converted to unstructured JSON, read from its
 * `internal/value_substitutions.go`) and renders into CAAPH's Go template syntax, so each
 * workload cluster's release gets its own value. A ClusterValue stands for a whole value, or
 * inside a string (template literal) through the token its `toString()` returns. Paths are
 * checked when made: under `Cluster` against the Cluster API v1beta2 `Cluster` schema
 * (`cluster-fields.ts`), under `ControlPlane` and `InfraCluster` (provider kinds) to the object's
 * top-level fields and metadata. Anywhere else than a HelmChartProxy (Manifests, a
 * ClusterResourceSet) a reference is refused with a {@link SpecError}.
 *
 * @module
 */
import { SpecError } from "../core/errors.js";
import { isPlainObject } from "../core/spec/index.js";
import { valuesPath } from "../core/spec/values.js";
import { CLUSTER_FIELDS, type FieldNode, type FieldTree } from "./cluster-fields.js";

/** The objects CAAPH v0.6.4 gives `valuesTemplate`. */
const ROOTS = ["Cluster", "ControlPlane", "InfraCluster"] as const;

/** The fields of an object's `metadata` a template may read; `labels` and `annotations` take a key. */
const METADATA: FieldTree = {
  name: true,
  namespace: true,
  uid: true,
  generation: true,
  resourceVersion: true,
  creationTimestamp: true,
  labels: "map",
  annotations: "map",
};

/** What a provider object (`ControlPlane`, `InfraCluster`) is checked against: its kind is not known here. */
const PROVIDER_OBJECT: FieldTree = {
  apiVersion: true,
  kind: true,
  metadata: METADATA,
  spec: "any",
  status: "any",
};

const TREES: Readonly<Record<(typeof ROOTS)[number], FieldTree>> = {
  Cluster: { apiVersion: true, kind: true, metadata: METADATA, ...CLUSTER_FIELDS },
  ControlPlane: PROVIDER_OBJECT,
  InfraCluster: PROVIDER_OBJECT,
};

const TOKEN = /\$\{helm-handoff:ClusterValue:(\d+)\}/g;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
const registry: ClusterValue[] = [];

/**
 * A field of the Cluster a HelmChartProxy installs into, as a chart value: CAAPH fills it in for
 * each selected Cluster. Use it as a whole value (`{ cluster: { name: ClusterValue.clusterName() } }`)
 * or inside a string (`` `metrics-${ClusterValue.clusterName()}` ``). A field that is not set on a
 * Cluster renders as `null` (inside a string, `<nil>`); a missing object on the way (e.g. no
 * `spec.clusterNetwork`) fails that Cluster's HelmReleaseProxy with CAAPH's template error.
 */
export class ClusterValue {
  /** The Cluster's name (`Cluster.metadata.name`). */
  public static clusterName(): ClusterValue {
    return ClusterValue.field("Cluster.metadata.name");
  }

  /** The Cluster's namespace in the management cluster (`Cluster.metadata.namespace`). */
  public static clusterNamespace(): ClusterValue {
    return ClusterValue.field("Cluster.metadata.namespace");
  }

  /** The Cluster's pod CIDR blocks, a list (`Cluster.spec.clusterNetwork.pods.cidrBlocks`). */
  public static podCidrBlocks(): ClusterValue {
    return ClusterValue.field("Cluster.spec.clusterNetwork.pods.cidrBlocks");
  }

  /** The Cluster's service CIDR blocks, a list (`Cluster.spec.clusterNetwork.services.cidrBlocks`). */
  public static serviceCidrBlocks(): ClusterValue {
    return ClusterValue.field("Cluster.spec.clusterNetwork.services.cidrBlocks");
  }

  /** The host of the Cluster's control-plane endpoint (`Cluster.spec.controlPlaneEndpoint.host`). */
  public static controlPlaneHost(): ClusterValue {
    return ClusterValue.field("Cluster.spec.controlPlaneEndpoint.host");
  }

  /** The port of the Cluster's control-plane endpoint, a number (`Cluster.spec.controlPlaneEndpoint.port`). */
  public static controlPlanePort(): ClusterValue {
    return ClusterValue.field("Cluster.spec.controlPlaneEndpoint.port");
  }

  /**
   * A label of the Cluster (`Cluster.metadata.labels["KEY"]`); `null` on a Cluster without it.
   * @param key - the label's key, e.g. `"topology.example.org/region"`
   */
  public static clusterLabel(key: string): ClusterValue {
    return ClusterValue.field(`Cluster.metadata.labels[${JSON.stringify(key)}]`);
  }

  /**
   * An annotation of the Cluster (`Cluster.metadata.annotations["KEY"]`); `null` on a Cluster without it.
   * @param key - the annotation's key
   */
  public static clusterAnnotation(key: string): ClusterValue {
    return ClusterValue.field(`Cluster.metadata.annotations[${JSON.stringify(key)}]`);
  }

  /**
   * Any field CAAPH v0.6.4 gives `valuesTemplate`, by its JSON path from `Cluster`, `ControlPlane`
   * or `InfraCluster`: `.name` for a field, `[0]` for a list item, `["a/b"]` for a key that is
   * not a plain name, e.g. `"Cluster.spec.clusterNetwork.pods.cidrBlocks[0]"`.
   * @param path - the path
   * @throws SpecError (field `ClusterValue.field`) for a path of another object or a field the object does not have
   */
  public static field(path: string): ClusterValue {
    const segments = parsePath(path);
    const mapKey = checkPath(path, segments);
    const value = new ClusterValue(canonicalPath(segments), goExpression(segments, mapKey), registry.length);
    registry.push(value);
    return value;
  }

  /** Whether `x` is a {@link ClusterValue}. */
  public static isClusterValue(x: unknown): x is ClusterValue {
    return x instanceof ClusterValue;
  }

  /** The field's path, e.g. `Cluster.metadata.labels["region"]`. */
  public readonly path: string;
  /** The Go template expression CAAPH evaluates, e.g. `.Cluster.metadata.name`. */
  public readonly expression: string;
  readonly #id: number;

  private constructor(path: string, expression: string, id: number) {
    this.path = path;
    this.expression = expression;
    this.#id = id;
  }

  /** A token standing for this field inside a string value (`` `prefix-${value}` ``). */
  public toString(): string {
    return `\${helm-handoff:ClusterValue:${this.#id}}`;
  }

  /** The same token in JSON, so that a value serialized before synth keeps the reference. */
  public toJSON(): string {
    return this.toString();
  }
}

type Segment = { readonly key: string } | { readonly index: number };

function pathError(path: string, why: string): SpecError {
  return new SpecError(
    "ClusterValue.field",
    `ClusterValue.field(${JSON.stringify(path)}) is invalid: ${why}`,
  );
}

function parsePath(path: string): Segment[] {
  const root = /^[A-Za-z]+/.exec(path)?.[0] ?? "";
  const out: Segment[] = [{ key: root }];
  const step = /^(?:\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])/;
  let rest = path.slice(root.length);
  while (rest !== "") {
    const m = step.exec(rest);
    if (m === null) {
      throw pathError(
        path,
        `cannot read it after ${JSON.stringify(path.slice(0, path.length - rest.length))}: write .field, [0] or ["key"] after the object, e.g. Cluster.metadata.labels["region"]`,
      );
    }
    if (m[1] !== undefined) out.push({ key: m[1] });
    else if (m[2] !== undefined) out.push({ index: Number(m[2]) });
    else out.push({ key: JSON.parse(m[3] ?? '""') as string });
    rest = rest.slice(m[0].length);
  }
  return out;
}

/**
 * Checks the path against the object's table.
 * @returns whether its last segment is a key of a map (labels, annotations)
 */
function checkPath(path: string, segments: readonly Segment[]): boolean {
  const [first, ...rest] = segments;
  const root = first !== undefined && "key" in first ? first.key : "";
  if (!(ROOTS as readonly string[]).includes(root)) {
    throw pathError(
      path,
      `CAAPH v0.6.4 gives valuesTemplate only ${ROOTS.join(", ")}: start the path with one of them, e.g. "Cluster.metadata.name"`,
    );
  }
  let node: FieldNode = TREES[root as (typeof ROOTS)[number]];
  let at = root;
  let mapKey = false;
  for (const s of rest) {
    if (node === "any") return false;
    mapKey = node === "map";
    const shown =
      "key" in s ? (IDENTIFIER.test(s.key) ? `.${s.key}` : `[${JSON.stringify(s.key)}]`) : `[${s.index}]`;
    if (node === "map") {
      if (!("key" in s)) throw pathError(path, `${at} is a map: give a key, e.g. ${at}["key"]`);
      node = true;
    } else if (node === "list" || Array.isArray(node)) {
      if (!("index" in s)) throw pathError(path, `${at} is a list: give an index, e.g. ${at}[0]`);
      node = Array.isArray(node) ? ((node as readonly [FieldNode])[0] ?? true) : true;
    } else if (node === true) {
      throw pathError(path, `${at} is a single value: it has no field ${shown}`);
    } else {
      const fields = node as FieldTree;
      if (!("key" in s) || !Object.hasOwn(fields, s.key)) {
        throw pathError(
          path,
          `${at} has no field ${shown}${root === "Cluster" ? " in the Cluster API v1beta2 schema" : ` (the provider's object: any field below spec and status is taken)`}; its fields are ${Object.keys(fields).join(", ")}`,
        );
      }
      node = fields[s.key] ?? true;
    }
    at += shown;
  }
  return mapKey;
}

function canonicalPath(segments: readonly Segment[]): string {
  return segments
    .map((s, i) =>
      "index" in s
        ? `[${s.index}]`
        : i === 0
          ? s.key
          : IDENTIFIER.test(s.key)
            ? `.${s.key}`
            : `[${JSON.stringify(s.key)}]`,
    )
    .join("");
}

/**
 * `.Cluster.a.b`, or `index .Cluster.a "b/c" 0` once a segment is not a plain name; a map's key
 * as `index (.Cluster.metadata.labels | default dict) "k"`, so that a Cluster without any label
 * gives `null` rather than a template error.
 */
function goExpression(segments: readonly Segment[], mapKey = false): string {
  const last = segments[segments.length - 1];
  if (mapKey && last !== undefined && "key" in last) {
    const map = goExpression(segments.slice(0, -1));
    return `index (${map} | default dict) ${JSON.stringify(last.key)}`;
  }
  let chain = "";
  let i = 0;
  for (; i < segments.length; i++) {
    const s = segments[i];
    if (s === undefined || !("key" in s) || !IDENTIFIER.test(s.key)) break;
    chain += `.${s.key}`;
  }
  if (i === segments.length) return chain;
  const args = segments.slice(i).map((s) => ("index" in s ? String(s.index) : JSON.stringify(s.key)));
  return `index ${chain} ${args.join(" ")}`;
}

/** Where a chart value holds a ClusterValue: its path in the values and the fields it names. */
export interface ClusterValueUse {
  /** The value's path, e.g. `values.ipam.cidr`. */
  readonly at: string;
  /** The ClusterValues, in order. */
  readonly values: readonly ClusterValue[];
}

function tokensIn(text: string, at: string): ClusterValue[] {
  return [...text.matchAll(TOKEN)].map((m) => {
    const value = registry[Number(m[1])];
    if (value === undefined) {
      throw new SpecError(
        at,
        `${at} holds a ClusterValue token of no ClusterValue made in this process: make it with ClusterValue`,
      );
    }
    return value;
  });
}

/**
 * The values with every ClusterValue replaced by its token, and where they are. A token in a
 * key is refused (keys are not templated).
 * @throws SpecError naming the key
 */
export function collectClusterValues(
  values: Readonly<Record<string, unknown>>,
  path = "values",
): { readonly values: Record<string, unknown>; readonly uses: readonly ClusterValueUse[] } {
  const uses: ClusterValueUse[] = [];
  const walk = (v: unknown, at: string): unknown => {
    if (v instanceof ClusterValue) {
      uses.push({ at, values: [v] });
      return v.toString();
    }
    if (typeof v === "string") {
      const found = tokensIn(v, at);
      if (found.length > 0) uses.push({ at, values: found });
      return v;
    }
    if (Array.isArray(v)) return v.map((x, i) => walk(x, `${at}[${i}]`));
    if (isPlainObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        const keyAt = valuesPath(at, k);
        if (tokensIn(k, keyAt).length > 0) {
          throw new SpecError(
            keyAt,
            `${keyAt} has a ClusterValue in its key: only values are filled in per Cluster; use a fixed key`,
          );
        }
        Object.defineProperty(out, k, {
          value: walk(x, keyAt),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return v;
  };
  return { values: walk(values, path) as Record<string, unknown>, uses };
}

/** The Go template action for a string holding tokens, or a whole ClusterValue: a JSON value. */
function action(text: string): string {
  const whole = /^\$\{helm-handoff:ClusterValue:(\d+)\}$/.exec(text);
  if (whole !== null) return `{{ ${registry[Number(whole[1])]?.expression} | toJson }}`;
  const args: string[] = [];
  const format = text.replace(/%/g, "%%").replace(TOKEN, (_m, id: string) => {
    const e = registry[Number(id)]?.expression ?? "";
    args.push(e.startsWith("index ") ? `(${e})` : e);
    return "%v";
  });
  return `{{ printf ${JSON.stringify(format)} ${args.join(" ")} | toJson }}`;
}

/**
 * Writes the values as a CAAPH `valuesTemplate` with `toYaml` (the values' YAML text, which
 * escapes every literal `{{`), then puts a Go template action where a string holds ClusterValue
 * tokens. Strings with tokens are swapped for placeholders the YAML writer leaves bare.
 */
export function templateWithClusterValues(
  values: Readonly<Record<string, unknown>>,
  toYaml: (values: Readonly<Record<string, unknown>>) => string,
): string {
  const text = JSON.stringify(values);
  let nonce = 0;
  while (text.includes(`hhcv${nonce}x`)) nonce++;
  const actions: string[] = [];
  const swap = (v: unknown): unknown => {
    if (typeof v === "string" && v.match(TOKEN) !== null) {
      actions.push(action(v));
      return `hhcv${nonce}x${actions.length - 1}`;
    }
    if (Array.isArray(v)) return v.map(swap);
    if (isPlainObject(v)) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        Object.defineProperty(out, k, {
          value: swap(x),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return v;
  };
  const yaml = toYaml(swap(values) as Record<string, unknown>);
  return yaml.replace(new RegExp(`hhcv${nonce}x(\\d+)`, "g"), (_m, i: string) => actions[Number(i)] ?? "");
}

/**
 * Refuses ClusterValues where nothing fills them in: output "Manifests" (no Cluster) and a
 * ClusterResourceSet (rendered once at synth, the same objects for every Cluster).
 * @throws SpecError naming the value's path
 */
export function refuseClusterValues(uses: readonly ClusterValueUse[], output: string): void {
  const use = uses[0];
  if (use === undefined || output === "HelmChartProxy") return;
  const why =
    output === "Manifests"
      ? 'output "Manifests" has no Cluster to read it from'
      : "a ClusterResourceSet applies the same objects, rendered once at synth, to every Cluster";
  throw new SpecError(
    use.at,
    `${use.at} holds ClusterValue ${use.values[0]?.path}: ${why}; use output "HelmChartProxy" (CAAPH fills it in for each Cluster), or give the value itself`,
  );
}
