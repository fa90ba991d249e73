"""The Textual app: screens, widgets and styles. No business logic lives here."""
