package picker

import "charm.land/lipgloss/v2"

func lipglossWidth(s string) int { return lipgloss.Width(s) }
