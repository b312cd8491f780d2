"""Running the workshop: the lab launcher, the pre-flight check, the two notebook editions, reading the lock."""
