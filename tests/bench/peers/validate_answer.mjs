// The typed-answer benchmark's peer (tests/bench/answer_bench.cpp): Ajv, compiled once, validating
// the same answer against the same JSON Schema. Prints the median process-CPU microseconds per
// validation (user + system, as the C++ side measures with std::clock) and whether it was valid.
//   node validate_answer.mjs SCHEMA.json ANSWER.json RUNS INNER
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Ajv = require('ajv');

const [schemaPath, answerPath, runsText, innerText] = process.argv.slice(2);
const schema = JSON.parse(readFileSync(schemaPath, 'utf8'));
const answer = JSON.parse(readFileSync(answerPath, 'utf8'));
const runs = Number(runsText);
const inner = Number(innerText);

const ajv = new Ajv({ allErrors: true, strict: false });
const validate = ajv.compile(schema);

const cpuUs = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
let valid = true;
for (let i = 0; i < 2000; ++i) valid = validate(answer) && valid;  // warm the JIT
const samples = [];
for (let r = 0; r < runs; ++r) {
  const t0 = cpuUs();
  for (let i = 0; i < inner; ++i) valid = validate(answer) && valid;
  samples.push((cpuUs() - t0) / inner);
}
samples.sort((a, b) => a - b);
console.log(`${samples[Math.floor(samples.length / 2)].toFixed(3)} ${valid ? 'valid' : 'invalid'}`);
