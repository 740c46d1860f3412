#!/usr/bin/env node
// Validates AsyncAPI documents with the official parser (@asyncapi/parser).
// Usage: node asyncapi/tools/validate.js [FILE...]   (default: every asyncapi/*.json)
// Exits 1 when a document has an error diagnostic (warnings are printed, not fatal).
'use strict';

const fs = require('node:fs');
const path = require('node:path');
const { Parser, DiagnosticSeverity } = require('@asyncapi/parser');

async function main(argv) {
  const root = path.resolve(__dirname, '..');
  const files = argv.length
    ? argv.map((file) => path.resolve(file))
    : fs.readdirSync(root).filter((name) => name.endsWith('.json')).sort().map((name) => path.join(root, name));
  if (files.length === 0) {
    console.error('no AsyncAPI documents found under ' + root);
    return 1;
  }
  const parser = new Parser();
  let failed = 0;
  for (const file of files) {
    const { document, diagnostics } = await parser.parse(fs.readFileSync(file, 'utf8'), { source: file });
    const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error);
    for (const d of diagnostics) {
      const level = d.severity === DiagnosticSeverity.Error ? 'error' : 'warning';
      if (level === 'error' || process.env.ASYNCAPI_VERBOSE) {
        console.error(`${path.relative(process.cwd(), file)}: ${level} ${d.code} at ${d.path.join('.') || '/'}: ${d.message}`);
      }
    }
    const warnings = diagnostics.length - errors.length;
    if (document === undefined || errors.length > 0) {
      failed += 1;
      console.error(`FAIL ${path.relative(process.cwd(), file)} (${errors.length} errors)`);
    } else {
      console.log(`ok   ${path.relative(process.cwd(), file)} (AsyncAPI ${document.version()}, ${document.channels().length} channels, ${warnings} warnings)`);
    }
  }
  return failed ? 1 : 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(error && error.stack ? error.stack : String(error));
    process.exit(2);
  },
);
