/**
 * The jsii construct library (constructs-jsii/) as Python and Java cdk8s apps use it: built once
 * per test file by `npm run package:jsii` ({@link buildJsiiPackage}, from the compiled dist/ of this
 * checkout), then installed the way each language installs a construct library: a virtualenv with
 * `cdk8s` from PyPI and our wheel (pinned by test/fixtures/python-constraints.txt), or a Maven
 * project with `org.cdk8s:cdk8s` from Maven Central and our jar from the Maven layout the build
 * wrote. Apps run with the toolchain's bin dir first on PATH: the jsii runtime starts `node` from
 * PATH (it must be >= 22.12 to `require()` helm-handoff's ES modules) and the constructs run helm.
 *
 * @module
 */
import { readdirSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { execa } from "execa";
import { toolchainBinDir } from "../../local-cluster/control-plane/binaries.js";
import { codeBlockAfter } from "./markdown.js";
import { PYTHON_CONSTRAINTS } from "./python-program.js";
import { repoRoot } from "./repo-root.js";

/** The jsii package's version (constructs-jsii/package.json). */
export const JSII_PACKAGE_VERSION = (
  JSON.parse(readFileSync(join(repoRoot(), "constructs-jsii", "package.json"), "utf8")) as { version: string }
).version;

/**
 * The user's cache home and the toolchain's bin dir as they were when the tests started: the tests
 * point `XDG_CACHE_HOME` at an empty render cache (`isolateCache`), which must not move pip's cache
 * (`~/.cache/pip`, wheels downloaded once) or the toolchain.
 */
const USER_CACHE_HOME = process.env.XDG_CACHE_HOME || join(homedir(), ".cache");
const TOOLCHAIN_BIN = toolchainBinDir();

/** The cdk8s version the Python and Java apps install: the oldest the package supports, which Maven Central serves. */
export const CDK8S_VERSION = "2.68.0";

/** Where {@link buildJsiiPackage} wrote the package. */
export interface JsiiBuild {
  /** The output folder of `npm run package:jsii`. */
  readonly dir: string;
  /** The Python wheel. */
  readonly wheel: string;
  /** The Maven repository layout (`java/`), usable as a `file://` repository. */
  readonly mavenRepo: string;
  /** Removes the output folder. */
  remove(): Promise<void>;
}

/**
 * Runs `npm run package:jsii -- --skip-build --targets TARGETS --out DIR` (dist/ is compiled by the
 * test command) into a new temp dir.
 * @param targets - `python`, `java` or both, comma-separated
 * @param generate - `go`, `dotnet` or both, comma-separated: generated as code only (`--generate`)
 */
export async function buildJsiiPackage(targets: string, generate?: string): Promise<JsiiBuild> {
  const dir = await mkdtemp(join(tmpdir(), "hh-jsii-"));
  try {
    const args = ["--skip-build", "--targets", targets, "--out", dir];
    if (generate !== undefined) args.push("--generate", generate);
    await execa("npm", ["run", "--silent", "package:jsii", "--", ...args], {
      cwd: repoRoot(),
      env: {
        PATH: [TOOLCHAIN_BIN, process.env.PATH ?? ""].join(delimiter),
        XDG_CACHE_HOME: USER_CACHE_HOME,
      },
    });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const python = join(dir, "python");
  const wheel = targets.includes("python")
    ? join(python, readdirSync(python).find((f) => f.endsWith(".whl")) ?? "no-wheel")
    : "";
  return {
    dir,
    wheel,
    mavenRepo: join(dir, "java"),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** A project made by {@link createPythonApp} or {@link createJavaApp}. */
export interface LanguageApp {
  /** The project's root directory. */
  readonly dir: string;
  /** Removes the project directory. */
  remove(): Promise<void>;
}

/** The environment an app runs in: the toolchain's node and helm first on PATH, then `extra`. */
export function appEnv(
  extraPath: readonly string[] = [],
  env: Record<string, string> = {},
): Record<string, string> {
  return { ...env, PATH: [...extraPath, TOOLCHAIN_BIN, process.env.PATH ?? ""].join(delimiter) };
}

/** The `cdk8s.yaml` of a Python app as `cdk8s init python-app` writes it, running `python main.py` (no `imports`). */
export const PYTHON_CDK8S_YAML = "language: python\napp: python main.py\n";

/**
 * A Python project laid out like `cdk8s init python-app` (`main.py`, `cdk8s.yaml`, `pyproject.toml`
 * naming the dependencies) in a new temp dir, with the virtualenv `.venv` holding `cdk8s` from
 * PyPI and our wheel, installed with pip and pinned by the project's constraints file.
 * @param files - extra files by relative path (charts, values files)
 */
export async function createPythonApp(
  name: string,
  mainPy: string,
  wheel: string,
  files: Readonly<Record<string, string>> = {},
): Promise<LanguageApp> {
  const dir = await mkdtemp(join(tmpdir(), `hh-py-${name}-`));
  const remove = () => rm(dir, { recursive: true, force: true });
  try {
    const pyproject =
      `[project]\nname = "${name}"\nversion = "0.1.0"\nrequires-python = ">=3.10"\n` +
      `dependencies = [\n    "cdk8s==${CDK8S_VERSION}",\n    "helm-handoff-cdk8s==${JSII_PACKAGE_VERSION}",\n]\n`;
    await writeFiles(dir, {
      "main.py": mainPy,
      "cdk8s.yaml": PYTHON_CDK8S_YAML,
      "pyproject.toml": pyproject,
      ...files,
    });
    await execa("python3", ["-m", "venv", ".venv"], { cwd: dir });
    await execa(
      join(dir, ".venv", "bin", "python"),
      ["-m", "pip", "install", "--quiet", "--disable-pip-version-check", `cdk8s==${CDK8S_VERSION}`, wheel],
      {
        cwd: dir,
        env: { PIP_CONSTRAINT: PYTHON_CONSTRAINTS, PIP_NO_INPUT: "1", XDG_CACHE_HOME: USER_CACHE_HOME },
      },
    );
  } catch (error) {
    await remove();
    throw error;
  }
  return { dir, remove };
}

/**
 * Runs `python main.py` (or `script`) in the app's virtualenv, as `source .venv/bin/activate` then
 * `python main.py` would; resolves with stdout, rejects with the process error (stderr included).
 */
export async function runPython(
  app: LanguageApp,
  env: Record<string, string> = {},
  script = "main.py",
): Promise<{ stdout: string; stderr: string }> {
  const venv = join(app.dir, ".venv");
  const { stdout, stderr } = await execa("python", [script], {
    cwd: app.dir,
    env: appEnv([join(venv, "bin")], { VIRTUAL_ENV: venv, ...env }),
  });
  return { stdout, stderr };
}

/** The `cdk8s.yaml` of a Java app as `cdk8s init java-app` writes it (without `imports`). */
export const JAVA_CDK8S_YAML =
  'language: java\napp:  mvn exec:java -Dexec.mainClass="com.mycompany.app.Main"\n';

/**
 * The pom.xml of `cdk8s init java-app` (cdk8s-plus and guava left out: the app uses neither), with
 * our package's Maven layout as a `file://` repository and its dependency.
 */
export function javaPom(mavenRepo: string): string {
  return `<project xmlns="http://maven.apache.org/POM/4.0.0" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
  xsi:schemaLocation="http://maven.apache.org/POM/4.0.0 http://maven.apache.org/maven-v4_0_0.xsd">
  <modelVersion>4.0.0</modelVersion>
  <groupId>com.mycompany.app</groupId>
  <artifactId>my-app</artifactId>
  <packaging>jar</packaging>
  <version>1.0-SNAPSHOT</version>
  <name>my-app</name>
  <url>http://maven.apache.org</url>
  <repositories>
    <repository>
      <id>helm-handoff</id>
      <url>file://${mavenRepo}</url>
    </repository>
  </repositories>
  <dependencies>
    <dependency>
      <groupId>org.cdk8s</groupId>
      <artifactId>cdk8s</artifactId>
      <version>${CDK8S_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>software.constructs</groupId>
      <artifactId>constructs</artifactId>
      <version>10.0.0</version>
    </dependency>
    <dependency>
      <groupId>dev.helm-handoff</groupId>
      <artifactId>helm-handoff-cdk8s</artifactId>
      <version>${JSII_PACKAGE_VERSION}</version>
    </dependency>
    <dependency>
      <groupId>javax.annotation</groupId>
      <artifactId>javax.annotation-api</artifactId>
      <version>1.3.2</version>
      <scope>provided</scope>
    </dependency>
    <dependency>
      <groupId>org.jetbrains</groupId>
      <artifactId>annotations</artifactId>
      <version>26.0.2</version>
      <scope>provided</scope>
    </dependency>
  </dependencies>
  <properties>
    <maven.compiler.source>1.8</maven.compiler.source>
    <maven.compiler.target>1.8</maven.compiler.target>
  </properties>
  <build>
    <sourceDirectory>src/main/java</sourceDirectory>
    <testSourceDirectory>src/test/java</testSourceDirectory>
  </build>
</project>
`;
}

/** A Maven project laid out like `cdk8s init java-app`, with `Main.java` as given, in a new temp dir. */
export async function createJavaApp(
  name: string,
  mainJava: string,
  mavenRepo: string,
  files: Readonly<Record<string, string>> = {},
): Promise<LanguageApp> {
  const dir = await mkdtemp(join(tmpdir(), `hh-java-${name}-`));
  await writeFiles(dir, {
    "pom.xml": javaPom(mavenRepo),
    "cdk8s.yaml": JAVA_CDK8S_YAML,
    "src/main/java/com/mycompany/app/Main.java": mainJava,
    ...files,
  });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs the cdk8s.yaml's `app` command of a Java app: `mvn exec:java` (compiling first), batch mode. */
export async function runJava(app: LanguageApp, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await execa(
    "mvn",
    ["--batch-mode", "--quiet", "compile", "exec:java", "-Dexec.mainClass=com.mycompany.app.Main"],
    { cwd: app.dir, env: appEnv([], env) },
  );
  return stdout;
}

/** The first block of `lang` under `heading` in docs/cdk8s.md. */
export function cdk8sDocBlock(heading: string, lang: string): string {
  return codeBlockAfter(readFileSync(join(repoRoot(), "docs", "cdk8s.md"), "utf8"), heading, lang);
}

/** The files of a synthesized cdk8s output dir, by name. */
export function synthesizedFiles(dir: string): Record<string, string> {
  return Object.fromEntries(
    readdirSync(dir)
      .sort()
      .map((f) => [f, readFileSync(join(dir, f), "utf8")]),
  );
}

async function writeFiles(dir: string, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}
