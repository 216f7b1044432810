"""The agent's stores: semantic facts, episodic events, bounded working memory, journal."""
