"""``agentforge tools fuzz``: call each tool with the inputs its schema allows and report
the ones that crash it.

``strategies`` turns a tool's exported JSON Schema into a hypothesis strategy; ``forms``
writes an argument object the sloppy ways models send it; ``classify`` sorts the outcome of
one call; ``options`` says how to fuzz and ``selection`` which tools are called and which
run under the effect guard of ``effects`` (an audit hook: no file written outside the
temporary directory, no host but loopback, no process); ``engine`` runs the calls and
shrinks each failure; ``report`` holds the results and their JSON and JUnit forms;
``plan`` checks what the commands are asked before any call and says what the reports
mean for the run.
hypothesis is imported only by ``strategies`` and
``engine``, which only the fuzz command and the pytest route load (``requirements`` says
whether it is installed).
"""
