"""Exercise checking: the grading engine, one module of exercises per lesson, the catalogue,
predictions, and your function in the panel."""
