"""Kueue's webhooks as kbatch admission plugins: :mod:`.kinds` (Kueue's own kinds) and :mod:`.jobs`
(the job integrations). They run in the API server, whatever controllers run."""
