"""Scenario cases: prompts nobody recorded, run live against today's tools.

``cases.py`` reads and strictly checks a case file, ``loop.py`` runs one case (the
model's calls executed through the ``ToolService``, results fed back, up to its
maximum of steps), ``expect.py`` holds a run against its expectations and ``run.py``
runs every case (repeated, concurrently). Nothing here prints.
"""
