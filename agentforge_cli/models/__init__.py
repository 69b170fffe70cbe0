"""Model connections: a conversation sent to a chat model with today's tools, through the
provider's official SDK, every response kept in a VCR cassette.

One module per connection (``openai_chat``, ``openai_responses``, ``anthropic_messages``,
``gemini``), each declaring a :class:`~agentforge_cli.models.connection.ModelConnection`
listed in :data:`~agentforge_cli.models.registry.MODEL_CONNECTIONS`. ``eval/`` asks a model
again at every recorded decision of a transcript. The SDKs are the optional extra
``agentforge-tools[models]``, imported only when a connection opens.
"""
