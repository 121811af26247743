// Validates Argo Workflow YAML files against the Argo Workflows JSON schema
// shipped by @kubernetes-models/argo-workflows (scripts/argo-schema.sh installs
// it beside this file). Prints "ok   FILE" or "FAIL FILE: why" for each file.
import fs from "fs";
import * as yaml from "js-yaml";
import { Workflow } from "@kubernetes-models/argo-workflows/argoproj.io/v1alpha1/Workflow";
let bad = 0;
for (const f of process.argv.slice(2)) {
  try {
    const doc = yaml.load(fs.readFileSync(f, "utf8"));
    new Workflow(doc).validate();
    console.log("ok   " + f);
  } catch (e) {
    bad++;
    console.log("FAIL " + f + ": " + e.message);
  }
}
process.exit(bad ? 1 : 0);
