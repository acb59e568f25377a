"""The game panels, drawn from a deal's play state: what each game's screen shows and
the buttons that send its taps, as plain data and HTML. Nothing here reads a request
or knows Flask: the web layer (``scorekeeper.web``) makes a panel's ``panel.View`` and
renders its template with what the game's ``view`` returns."""
