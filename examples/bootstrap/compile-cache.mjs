// Preloaded by Pulumi.yaml (`nodeargs: --import=./compile-cache.mjs`): Node caches the compiled
// code of every module loaded after this (@pulumi/pulumi, helm-handoff, ...) on disk, so the
// program starts faster on every later `pulumi up`. Nothing else happens here.
import { enableCompileCache } from "node:module";

enableCompileCache();
