"""The class: the learner's progress file, resetting one exercise, the instructor's room view and its hub service."""
