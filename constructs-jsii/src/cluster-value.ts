/**
 * `ClusterValue` for Python, Java, Go and .NET cdk8s apps: a field of the Cluster a HelmChartProxy
 * installs into, as a chart value that CAAPH fills in for each Cluster. Each factory makes the
 * `ClusterValue` of `helm-handoff/cdk8s` (the one implementation of the path check and the
 * rendering); `ClusterAddon` turns these wrappers, anywhere in its `values`, into those.
 */
// The ES-module package, loaded with require() (Node >= 22.12): the one implementation.
import * as core from "helm-handoff/cdk8s";

/**
 * A field of the Cluster (or of its ControlPlane or InfraCluster) as a chart value, for
 * `ClusterAddonOutput.HELM_CHART_PROXY`: use it as a whole value, or inside a string through
 * `toString()` (Python `f"mesh-{value.to_string()}"`). Any other output refuses it at construction.
 */
export class ClusterValue {
  /** The Cluster's name (`Cluster.metadata.name`). */
  public static clusterName(): ClusterValue {
    return new ClusterValue(core.ClusterValue.clusterName());
  }

  /** The Cluster's namespace in the management cluster (`Cluster.metadata.namespace`). */
  public static clusterNamespace(): ClusterValue {
    return new ClusterValue(core.ClusterValue.clusterNamespace());
  }

  /** The Cluster's pod CIDR blocks, a list (`Cluster.spec.clusterNetwork.pods.cidrBlocks`). */
  public static podCidrBlocks(): ClusterValue {
    return new ClusterValue(core.ClusterValue.podCidrBlocks());
  }

  /** The Cluster's service CIDR blocks, a list (`Cluster.spec.clusterNetwork.services.cidrBlocks`). */
  public static serviceCidrBlocks(): ClusterValue {
    return new ClusterValue(core.ClusterValue.serviceCidrBlocks());
  }

  /** The host of the Cluster's control-plane endpoint (`Cluster.spec.controlPlaneEndpoint.host`). */
  public static controlPlaneHost(): ClusterValue {
    return new ClusterValue(core.ClusterValue.controlPlaneHost());
  }

  /** The port of the Cluster's control-plane endpoint, a number (`Cluster.spec.controlPlaneEndpoint.port`). */
  public static controlPlanePort(): ClusterValue {
    return new ClusterValue(core.ClusterValue.controlPlanePort());
  }

  /**
   * A label of the Cluster; null on a Cluster without it.
   * @param key - the label's key
   */
  public static clusterLabel(key: string): ClusterValue {
    return new ClusterValue(core.ClusterValue.clusterLabel(key));
  }

  /**
   * An annotation of the Cluster; null on a Cluster without it.
   * @param key - the annotation's key
   */
  public static clusterAnnotation(key: string): ClusterValue {
    return new ClusterValue(core.ClusterValue.clusterAnnotation(key));
  }

  /**
   * Any field CAAPH v0.6.4 gives `valuesTemplate`, by its path from `Cluster`, `ControlPlane` or
   * `InfraCluster`, e.g. `"Cluster.spec.clusterNetwork.pods.cidrBlocks[0]"`; checked against the
   * Cluster API v1beta2 `Cluster` schema.
   * @param path - the path
   */
  public static field(path: string): ClusterValue {
    return new ClusterValue(core.ClusterValue.field(path));
  }

  /** The field's path, e.g. `Cluster.metadata.labels["region"]`. */
  public readonly path: string;
  /** The Go template expression CAAPH evaluates, e.g. `.Cluster.metadata.name`. */
  public readonly expression: string;
  /** @internal */
  public readonly _value: core.ClusterValue;

  private constructor(value: core.ClusterValue) {
    this._value = value;
    this.path = value.path;
    this.expression = value.expression;
  }

  /** A token standing for this field inside a string value. */
  public toString(): string {
    return this._value.toString();
  }
}

/** `values` with every {@link ClusterValue}, at any depth, replaced by the one it wraps. */
export function coreValues(values: { [key: string]: any } | undefined): { [key: string]: any } | undefined {
  const walk = (v: unknown): unknown => {
    if (v instanceof ClusterValue) return v._value;
    if (Array.isArray(v)) return v.map(walk);
    if (typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) {
        Object.defineProperty(out, k, {
          value: walk(x),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    return v;
  };
  return values === undefined || values === null ? values : (walk(values) as { [key: string]: any });
}
