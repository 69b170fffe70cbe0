"""``sample_project/`` is a user's project that the init tests copy: its tests are run
there, never collected here."""

collect_ignore = ["sample_project"]
