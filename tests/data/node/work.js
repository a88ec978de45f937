// work.js — a CPU-bound node script for tests/0251: Map lookups (V8's
// builtins, run from code node maps at a new address), string hashing in
// the runtime, and a numeric loop that V8 compiles to JIT code. Written
// for zt's tests; no licence needed beyond the project's.
function mapWork(n) {
  const m = new Map();
  for (let i = 0; i < 1000; i++) m.set('k' + i, i);
  let s = 0;
  for (let i = 0; i < n; i++) s += m.get('k' + (i % 1000));
  return s;
}
function numWork(n) {
  let x = 0;
  for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003;
  return x;
}
const rounds = Number(process.argv[2] || 60);
let t = 0;
for (let r = 0; r < rounds; r++) { t += mapWork(400000); t += numWork(3000000); }
console.log(t > 0 ? 'ok' : 'no');
