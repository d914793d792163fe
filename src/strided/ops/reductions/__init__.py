"""The reductions: sums and means, extrema, the NaN-aware reductions, scans and softmax."""
