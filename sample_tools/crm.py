"""A CRM lookup: one tool on a class.

There is deliberately no module-level instance here: load it as
``sample_tools.crm:CrmTools`` (the CLI instantiates a class whose constructor takes no
arguments) or register ``CrmTools()`` yourself::

    tools = build_local_tools([CrmTools()], logging=False)
"""

from typing import Annotated

from agentforge_cli import P, tool


class CrmTools:
    """Customer look-ups for the CRM agent."""

    @tool(name="queryCustomer", description="按客户名查询客户信息")
    def queryCustomer(
        self,
        name: Annotated[str, P("客户名称", name="name")],
        limit: Annotated[int, P("返回条数", name="limit")],
    ) -> str:
        return f"customer:{name},limit:{limit}"
