// The API's types from docs/openapi.json (`npm run generate`); test/unit/types.test.ts checks they are current.
import { readFile, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import openapiTS, { astToString } from "openapi-typescript";

export const DOCUMENT = fileURLToPath(new URL("../../../docs/openapi.json", import.meta.url));
export const OUTPUT = fileURLToPath(new URL("../src/generated/openapi.ts", import.meta.url));
const HEADER = "/**\n * Generated from docs/openapi.json by openapi-typescript (npm run generate). Do not edit.\n */\n\n";

/** The TypeScript the document generates now. */
export async function generate() {
  const document = JSON.parse(await readFile(DOCUMENT, "utf-8"));
  // Fields with a default stay optional in bodies: the service fills them in.
  const ast = await openapiTS(document, { defaultNonNullable: false });
  return HEADER + astToString(ast);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await writeFile(OUTPUT, await generate());
  console.log(`wrote ${OUTPUT}`);
}
