// rustwork: Rust call stacks for DWARF unwinding tests: generics, closures,
// trait objects, inlined iterator adaptors.
use std::hint::black_box;

trait Work {
    fn run(&self, n: u64) -> u64;
}

struct Sum;
struct Mix(u64);

impl Work for Sum {
    #[inline(never)]
    fn run(&self, n: u64) -> u64 {
        (0..n).map(|x| x.wrapping_mul(x)).fold(0u64, |a, b| a.wrapping_add(b))
    }
}

impl Work for Mix {
    #[inline(never)]
    fn run(&self, n: u64) -> u64 {
        let mut s = self.0;
        for i in 0..n {
            s = black_box(s.rotate_left(5) ^ i);
        }
        s
    }
}

#[inline(never)]
fn drive(w: &dyn Work, n: u64) -> u64 {
    w.run(n)
}

#[inline(never)]
fn nested<F: Fn(u64) -> u64>(depth: u32, f: &F, n: u64) -> u64 {
    if depth == 0 {
        return f(n);
    }
    nested(depth - 1, f, n) + 1
}

fn main() {
    let n: u64 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(3_000_000);
    let works: Vec<Box<dyn Work>> = vec![Box::new(Sum), Box::new(Mix(7))];
    let mut total = 0u64;
    for r in 0..20 {
        for w in &works {
            total = total.wrapping_add(nested(r % 4, &|k| drive(w.as_ref(), k), n));
        }
    }
    println!("{}", black_box(total) & 1);
}
