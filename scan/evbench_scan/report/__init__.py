"""Campaign reports: rows and their spreads (analysis, stats, noise), the
answers, tables and figures (plots, shiftplots), shift scans and their
simulated series, references, rendered through templates/ (report).
Imports results/ and spec/, never run/."""
