"""The lessons' worlds: fixtures and scenes, the scripted model, retrieval, injections, loading,
the adversarial slice, the capstone."""
