"""The workshop's teaching machinery, kept apart from the library it teaches.

Fixtures and scenarios, the scripted stand-in model, the loading simulation,
the adversarial slice, exercise checks, the two notebook editions, the lab
launcher and the pre-flight check. Everything here may import the library
(``botie.context``, ``botie.actions``, ``botie.turn``); the library never
imports anything from here.
"""
