from helpdesk.tools import HelpdeskTools


def test_a_ticket_opened_can_be_closed():
    tools = HelpdeskTools()
    number = tools.open_ticket("Screen flickers")
    assert tools.set_status(number, "closed") == f"#{number} is closed"
    assert tools.get_ticket(number).startswith(f"#{number} [closed]")
