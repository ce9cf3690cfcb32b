// Runs the pinned skills-ref validator over the skill folders named on the command line and
// prints {"<folder>": ["<message>", ...], ...} as one JSON object (an empty list: valid).
import { validate } from "skills-ref";

const out = {};
for (const dir of process.argv.slice(2)) {
  out[dir] = await validate(dir);
}
process.stdout.write(JSON.stringify(out));
