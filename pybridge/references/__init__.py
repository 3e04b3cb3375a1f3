"""References for the Zoo layers' ``Reference:`` lines: functions returning the counterpart module."""
