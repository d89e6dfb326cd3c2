s_waitcnt 98560
