/**
 * Chart values on their way in: the one reader of values files (UTF-8 only, YAML errors without the
 * file's text, no `__proto__` key), the `__proto__` rule for `values`, and the merge and canonical
 * JSON, which define keys instead of assigning them so no key is lost.
 *
 * @module
 */
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { validateSpec } from "../../../../core/spec/index.js";
import { mergeValues, readValueFiles } from "../../../../core/spec/values.js";
import { canonicalJson } from "../../../../core/util/canonical-json.js";
import { baseSpec as base, throwsSpecError } from "../../../support/spec.js";

const dir = mkdtempSync(join(tmpdir(), "hh-values-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

const PROTO =
  'a values key named "__proto__" cannot be passed on intact (JavaScript drops it); rename the key in the values and in the chart';

function file(name: string, content: string | Buffer): string {
  const f = join(dir, name);
  writeFileSync(f, content);
  return f;
}

test("a values file that is not UTF-8 is rejected at validation naming the file", () => {
  const f = file("latin1.yaml", Buffer.from("greeting: gr\xfc\xdf dich\n", "latin1"));
  const message = `valueFiles[0] ${JSON.stringify(f)} is not UTF-8 text: save it as UTF-8 (helm reads values files as UTF-8; other encodings would change the values)`;
  throwsSpecError(() => validateSpec({ ...base, valueFiles: [f] }), "valueFiles[0]", message);
  throwsSpecError(() => readValueFiles([f]), "valueFiles[0]", message);
});

test("a values file in UTF-8 is read as is, a byte order mark included", () => {
  const f = file(
    "utf8.yaml",
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("greeting: grüß dich\n")]),
  );
  assert.deepEqual(readValueFiles([f]), { greeting: "grüß dich" });
});

test("a values file that is not YAML is rejected naming the error's kind and position, not its text", () => {
  const f = file("dup.yaml", "password: file-secret-1\npassword: file-secret-2\n");
  throwsSpecError(
    () => validateSpec({ ...base, valueFiles: [f] }),
    "valueFiles[0]",
    `valueFiles[0] ${JSON.stringify(f)} is not valid YAML: duplicate key at line 2, column 1`,
  );
});

test("a values key named __proto__ is rejected at validation, in values and in a values file", () => {
  throwsSpecError(
    () => validateSpec({ ...base, values: JSON.parse('{"a": {"__proto__": {"b": 1}}}') as unknown }),
    "values",
    `values.a.__proto__ is invalid: ${PROTO}`,
  );
  const f = file("proto.yaml", "list:\n  - __proto__:\n      polluted: true\n");
  throwsSpecError(
    () => validateSpec({ ...base, valueFiles: [f] }),
    "valueFiles[0]",
    `valueFiles[0] ${JSON.stringify(f)}.list[0].__proto__ is invalid: ${PROTO}`,
  );
});

test("the merge and the canonical JSON keep every own key, __proto__ included", () => {
  const layer = JSON.parse('{"__proto__": {"x": 1}, "a": {"__proto__": {"y": 2}}}') as Record<
    string,
    unknown
  >;
  const merged = mergeValues({ b: 1 }, layer);
  assert.deepEqual(Object.keys(merged), ["b", "__proto__", "a"]);
  assert.equal(Object.getPrototypeOf(merged), Object.prototype);
  assert.equal(JSON.stringify(merged), '{"b":1,"__proto__":{"x":1},"a":{"__proto__":{"y":2}}}');
  assert.equal(canonicalJson(layer), '{"__proto__":{"x":1},"a":{"__proto__":{"y":2}}}');
  assert.notEqual(canonicalJson(layer), canonicalJson({ a: {} }));
});
