"""render_messages equals Griptape's BasePromptDriver.prompt_stack_to_string for the same stack."""

import json

import pytest
from griptape.common import PromptStack as GPromptStack
from griptape.drivers.prompt.dummy import DummyPromptDriver

from offprompt import artifacts as oa
from offprompt.prompt import PromptStack, render_messages


def griptape_render(stack: PromptStack) -> str:
    theirs = GPromptStack.from_json(json.dumps(stack.to_dict()))
    return DummyPromptDriver().prompt_stack_to_string(theirs)


def stacks():
    empty = PromptStack()
    simple = PromptStack()
    simple.add_system_message("You are helpful.")
    simple.add_user_message("Hi 😀")
    simple.add_assistant_message("Hello!")
    mixed = PromptStack()
    mixed.add_user_message(
        oa.ListArtifact(
            [
                oa.TextArtifact("look: "),
                oa.ImageArtifact(b"i", format="png", width=1, height=1, name="i.png"),
                oa.TextArtifact("and this"),
            ]
        )
    )
    mixed.add_assistant_message(oa.ActionArtifact(oa.ToolAction(tag="c", name="Calc", path="add", input={"a": 1})))
    mixed.add_user_message(
        oa.ActionArtifact(oa.ToolAction(tag="c", name="Calc", path="add", output=oa.TextArtifact("2")))
    )
    mixed.add_message("custom role text", "tool")
    mixed.add_assistant_message(oa.InfoArtifact("info\n\nwith blank lines"))
    blanks = PromptStack()
    blanks.add_user_message("")
    blanks.add_system_message("")
    blanks.add_assistant_message(oa.GenericArtifact({"g": 1}))
    return {"empty": empty, "simple": simple, "mixed": mixed, "blanks": blanks}


@pytest.mark.parametrize(("name", "stack"), stacks().items())
def test_render_equals_griptape(name, stack):
    assert render_messages(stack.messages) == griptape_render(stack)


def test_render_simple_shape():
    stack = stacks()["simple"]
    assert render_messages(stack.messages) == "You are helpful.\n\nUser: Hi 😀\n\nAssistant: Hello!\n\nAssistant:"


def test_render_empty_is_the_trailer():
    assert render_messages([]) == "Assistant:"
