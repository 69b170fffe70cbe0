"""A weather lookup as a module-level function tool.

Offline and deterministic: forecasts come from a small fixed table, never the network.
Load it as ``sample_tools.weather`` (the module is scanned) or
``sample_tools.weather:getWeather``.
"""

from typing import Annotated

from agentforge_cli import P, tool

_FORECASTS: dict[str, str] = {
    "北京": "晴，-3~8°C，北风3级",
    "上海": "多云，9~15°C，东风2级",
    "广州": "小雨，18~24°C，南风2级",
    "深圳": "阴，19~25°C，东南风2级",
    "杭州": "晴转多云，7~16°C，微风",
    "London": "light rain, 6~11°C, SW wind 4",
}
_DEFAULT = "晴，15~22°C，微风"


@tool(name="getWeather", description="查询城市天气")
def getWeather(city: Annotated[str, P("城市名", name="city")]) -> str:
    return f"{city}：{_FORECASTS.get(city.strip(), _DEFAULT)}"
