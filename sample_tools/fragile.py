"""A deliberately fragile tool, kept so that ``agentforge tools fuzz`` has something real
to find (``make demo`` shows it).

``averageRating`` divides by the number of reviews without checking it: a product with no
reviews yet (``"reviews": 0``, which its schema allows) crashes it with a
``ZeroDivisionError`` instead of an answer the model can use. Do not copy it: check the
count, or declare ``Annotated[int, P(minimum=1)]``.

    agentforge tools fuzz sample_tools.fragile --seed 0
"""

from typing import Annotated

from agentforge_cli import P, tool


@tool(name="averageRating", description="Average star rating of a product")
def averageRating(
    total_stars: Annotated[int, P("Sum of the stars of all reviews")],
    reviews: Annotated[int, P("Number of reviews")],
) -> float:
    return round(total_stars / reviews, 2)  # no check for 0 reviews: on purpose
