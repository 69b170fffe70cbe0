"""The tools of traceloop/openllmetry's OpenAI Agents SDK tests (``ol-openai-agents-*``
cassettes): a recipe editor, and a router that hands off to an analytics agent.

The recipe tools answer as the test's tools do, with pydantic models that the Agents SDK
turns into text with ``str()``; the search runs over the test's one-recipe database and
the modification swaps meat for a vegetarian ingredient. The analytics tools chain text,
each prefixing what it was given; the handoff answers with the agent it hands to, as the
SDK writes it.
"""

from __future__ import annotations

import json

from execution_log import counted_tool
from pydantic import BaseModel


class Recipe(BaseModel):
    id: str
    name: str
    ingredients: list[str]
    instructions: list[str]
    prep_time: str
    cook_time: str
    servings: int


class SearchResponse(BaseModel):
    status: str
    message: str
    recipes: dict[str, Recipe]
    recipe_count: int
    query: str


class ModificationResponse(BaseModel):
    status: str
    message: str
    modified_recipe: Recipe
    changes_made: list[str]
    original_recipe: Recipe


RECIPES = {
    "spaghetti_carbonara": Recipe(
        id="spaghetti_carbonara", name="Spaghetti Carbonara",
        ingredients=["400g spaghetti", "200g pancetta", "4 large eggs",
                     "100g Pecorino Romano cheese"],
        instructions=["Cook spaghetti", "Dice pancetta", "Whisk eggs with cheese"],
        prep_time="10 minutes", cook_time="15 minutes", servings=4),
}

MEAT_SWAPS = {"pancetta": ("mushrooms", "Sauté mushrooms")}
"""A meat, what replaces it, and the step that prepares the replacement."""


class RecipeTools:
    """The recipe editor's tools."""

    @counted_tool(name="search_recipes")
    def search_recipes(self, query: str = "") -> str:
        """Search and browse recipes in the database."""
        found = {key: recipe for key, recipe in RECIPES.items()
                 if query.lower() in recipe.name.lower() or query.lower() in key}
        return str(SearchResponse(
            status="success", message=f'Found {len(found)} recipes matching "{query}"',
            recipes=found, recipe_count=len(found), query=query))

    @counted_tool(name="plan_and_apply_recipe_modifications")
    def plan_and_apply_recipe_modifications(self, recipe: Recipe,
                                            modification_request: str) -> str:
        """Plan modifications to a recipe based on user request and apply them."""
        if "vegetarian" not in modification_request.lower():
            raise ValueError(f"cannot plan {modification_request!r}")
        ingredients, instructions, changes = (list(recipe.ingredients),
                                              list(recipe.instructions), [])
        for meat, (replacement, step) in MEAT_SWAPS.items():
            if not any(meat in item for item in ingredients):
                continue
            ingredients = [item.replace(meat, replacement) for item in ingredients]
            instructions = [step if meat in item else item for item in instructions]
            changes.append(f"Replaced {meat} with {replacement}")
        modified = recipe.model_copy(update={
            "name": "Vegetarian " + recipe.name.split()[-1],
            "ingredients": ingredients, "instructions": instructions})
        return str(ModificationResponse(
            status="success",
            message=f"Successfully modified {recipe.name} to be vegetarian",
            modified_recipe=modified, changes_made=changes, original_recipe=recipe))


class RouterTools:
    """The data router's handoff and the analytics agent's chained tools."""

    @counted_tool(name="transfer_to_analytics_agent")
    def transfer_to_analytics_agent(self) -> str:
        """Hand off to the Analytics Agent (the SDK's answer names the new agent)."""
        return json.dumps({"assistant": "Analytics Agent"})

    @counted_tool(name="analyze_data")
    def analyze_data(self, data_request: str) -> str:
        """Analyze data patterns."""
        return f"Analyzed data patterns for: {data_request}"

    @counted_tool(name="process_results")
    def process_results(self, analysis_data: str) -> str:
        """Process analysis results."""
        return f"Processed results: {analysis_data}"

    @counted_tool(name="generate_report")
    def generate_report(self, processed_data: str) -> str:
        """Generate a report from processed data."""
        return f"Generated report: {processed_data}"
