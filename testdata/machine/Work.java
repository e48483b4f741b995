// Work: hot Java methods for a JIT perf map (-XX:+DumpPerfMapAtExit).
public class Work {
    static long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    static int sieve(int n) {
        boolean[] a = new boolean[n + 1]; int c = 0;
        for (int i = 2; i <= n; i++) if (!a[i]) { c++; for (long j = (long) i * i; j <= n; j += i) a[(int) j] = true; }
        return c;
    }
    public static void main(String[] args) {
        long t = 0, end = System.currentTimeMillis() + 1500;
        while (System.currentTimeMillis() < end) t += fib(24) + sieve(50000);
        System.out.println(t);
    }
}
