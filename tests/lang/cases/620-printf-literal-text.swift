// printf with no conversions; %% prints %.
import io;
printf("plain");
printf("100%% sure");
