"""The class: the learner's progress file and kept functions, resetting one exercise, the instructor's room view
and its hub service."""
