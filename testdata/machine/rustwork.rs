// rustwork: generics, traits, closures and collections for cpu-clock samples.
use std::collections::HashMap;

trait Shape {
    fn area(&self, n: u32) -> f64;
}

struct Square(f64);
struct Circle(f64);

impl Shape for Square {
    fn area(&self, n: u32) -> f64 {
        (0..n).map(|i| self.0 * self.0 / (i as f64 + 1.0)).sum()
    }
}

impl Shape for Circle {
    fn area(&self, n: u32) -> f64 {
        (0..n).map(|i| 3.14159 * self.0 * self.0 / (i as f64 + 2.0)).sum()
    }
}

mod app {
    pub struct Matrix<T, const N: usize> {
        pub m: [[T; N]; N],
    }

    impl<T: Copy + Default + std::ops::Add<Output = T> + std::ops::Mul<Output = T> + From<u8>, const N: usize> Matrix<T, N> {
        pub fn new() -> Self {
            let mut m = [[T::default(); N]; N];
            for i in 0..N {
                for j in 0..N {
                    m[i][j] = T::from(((i + j) % 200) as u8);
                }
            }
            Matrix { m }
        }
        #[inline(never)]
        pub fn mul(&self, o: &Self) -> Self {
            let mut r = Self::new();
            for i in 0..N {
                for j in 0..N {
                    let mut s = T::default();
                    for k in 0..N {
                        s = s + self.m[i][k] * o.m[k][j];
                    }
                    r.m[i][j] = s;
                }
            }
            r
        }
    }

    #[inline(never)]
    pub fn count_words(words: &[String]) -> std::collections::HashMap<String, usize> {
        let mut h = std::collections::HashMap::new();
        for w in words {
            *h.entry(w.clone()).or_insert(0) += 1;
        }
        h
    }
}

#[inline(never)]
fn work(rounds: u32) -> f64 {
    let shapes: Vec<Box<dyn Shape>> = (0..8)
        .map(|i| -> Box<dyn Shape> { if i % 2 == 1 { Box::new(Square(i as f64)) } else { Box::new(Circle(i as f64)) } })
        .collect();
    let mut total = 0.0;
    let mut counts: HashMap<String, usize> = HashMap::new();
    for r in 0..rounds {
        for s in &shapes {
            total += s.area(2000);
        }
        let a = app::Matrix::<f64, 24>::new();
        total += a.mul(&a).m[3][4];
        let b = app::Matrix::<u64, 16>::new();
        total += b.mul(&b).m[1][2] as f64;
        let words: Vec<String> = (0..200).map(|i| format!("k{}", (i + r) % 50)).collect();
        for (k, v) in app::count_words(&words) {
            *counts.entry(k).or_insert(0) += v;
        }
        let mut v: Vec<u32> = (0..5000).map(|i| (i * 7919) % 5003).collect();
        v.sort_by(|x, y| y.cmp(x));
        total += v[17] as f64;
    }
    total + counts.values().sum::<usize>() as f64
}

fn main() {
    let rounds: u32 = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(40);
    println!("{}", work(rounds));
}
