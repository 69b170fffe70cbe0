"""The tools of Inspect AI's own test logs (``inspect-*`` folders): its web browser and
the ``bash`` of its sandbox.

The browser answers with the accessibility tree of a live web site, which a replay does
not visit: each browser tool says what it would have done, so its call is executed (and
counted) once and its recorded page does not match. ``bash`` runs in a model of the
sandbox the logs were made in, a container whose working directory is ``/`` with the
top-level directories of a Debian image: ``ls`` there is computed again from that listing;
any other command is not run.
"""

from __future__ import annotations

from execution_log import counted_tool

SANDBOX_ROOT = ("bin", "boot", "dev", "etc", "home", "lib", "lib64", "media", "mnt", "opt",
                "proc", "root", "run", "sbin", "srv", "sys", "tmp", "usr", "var")
"""The top-level directories of the sandbox's image, its working directory."""


class BrowserTools:
    """Inspect's web browser tools: not browsed in a replay."""

    @counted_tool(name="web_browser_go")
    def web_browser_go(self, url: str) -> str:
        """Navigate the web browser to a URL."""
        return f"(not browsed in a replay) go to {url}"

    @counted_tool(name="web_browser_click")
    def web_browser_click(self, element_id: int) -> str:
        """Click an element on the current page."""
        return f"(not browsed in a replay) click element {element_id}"

    @counted_tool(name="web_browser_type")
    def web_browser_type(self, element_id: int, text: str) -> str:
        """Type text into an input on the current page."""
        return f"(not browsed in a replay) type {text!r} into element {element_id}"

    @counted_tool(name="web_browser_type_submit")
    def web_browser_type_submit(self, element_id: int, text: str) -> str:
        """Type text into a form input and submit the form."""
        return f"(not browsed in a replay) submit {text!r} in element {element_id}"

    @counted_tool(name="web_browser_scroll")
    def web_browser_scroll(self, direction: str) -> str:
        """Scroll the current page up or down."""
        return f"(not browsed in a replay) scroll {direction}"

    @counted_tool(name="web_browser_back")
    def web_browser_back(self) -> str:
        """Go back in the browser's history."""
        return "(not browsed in a replay) back"

    @counted_tool(name="web_browser_forward")
    def web_browser_forward(self) -> str:
        """Go forward in the browser's history."""
        return "(not browsed in a replay) forward"

    @counted_tool(name="web_browser_refresh")
    def web_browser_refresh(self) -> str:
        """Reload the current page."""
        return "(not browsed in a replay) refresh"


class SandboxTools:
    """Inspect's ``bash`` tool, in a model of the logs' sandbox."""

    @counted_tool(name="bash")
    def bash(self, cmd: str) -> str:
        """Run a bash command in the sandbox (only ``ls`` of its working directory)."""
        if cmd.strip() == "ls":
            return "".join(f"{name}\n" for name in sorted(SANDBOX_ROOT))
        return f"(not run in a replay) {cmd}"
