"""The learner's own files: the progress file (checks, hints, predictions), the functions kept for the
capstone, resetting one exercise, and writing a file whole or not at all."""
