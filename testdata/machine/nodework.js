// nodework: hot JavaScript functions for a JIT perf map.
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sieve(n) {
  const a = new Uint8Array(n + 1); let c = 0;
  for (let i = 2; i <= n; i++) { if (!a[i]) { c++; for (let j = i * i; j <= n; j += i) a[j] = 1; } }
  return c;
}
class Shape { area() { return 0; } }
class Sq extends Shape { constructor(s) { super(); this.s = s; } area() { return this.s * this.s; } }
let t = 0;
const end = Date.now() + 1500;
while (Date.now() < end) {
  t += fib(22) + sieve(20000);
  for (let i = 0; i < 1000; i++) t += new Sq(i).area() % 7;
}
console.log(t);
