"""The timeline: instants and their files, the active and archived timelines, the one timeline
writer, heartbeats, time travel."""
