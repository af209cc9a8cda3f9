package dev.fenced.bench;

import java.util.Arrays;

/** Median, quartiles and range of a small sample (per-round figures). */
record Stats(double median, double q1, double q3, double min, double max, int n) {

    static Stats of(double[] values) {
        double[] v = values.clone();
        Arrays.sort(v);
        if (v.length == 0) {
            return new Stats(Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0);
        }
        return new Stats(quantile(v, 0.5), quantile(v, 0.25), quantile(v, 0.75), v[0], v[v.length - 1], v.length);
    }

    /** The {@code p} quantile of {@code values} (0.99: the 99th percentile), by {@link #quantile(double[], double)}. */
    static double percentile(double[] values, double p) {
        double[] v = values.clone();
        Arrays.sort(v);
        return quantile(v, p);
    }

    /** Linear interpolation between closest ranks (R's type 7). */
    private static double quantile(double[] sorted, double p) {
        double h = (sorted.length - 1) * p;
        int lo = (int) Math.floor(h);
        int hi = Math.min(sorted.length - 1, lo + 1);
        return sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
    }
}
